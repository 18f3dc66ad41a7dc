// Bridge (docs/contract.md §9.3): a copy from one connection of a project to another, checked when asked for
// (both connections in the project and distinct, not one database behind two records, the tables,
// filters and subset valid against the source's schema, no other copy writing into the target),
// then gated and created as a `bridge_run` in one transaction with its audit entry. The approval is
// bound to the request and both schema hashes. The request's hash also names it (the run's
// subject): a later run of the same request resumes what a failed or cancelled one left.
import { createHash } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, invalid, type ValidationItem } from '../../core/errors.ts';
import { displayName, resolveTables, targetTableOf } from '../../engine/bridge/copy-plan.ts';
import { checkFilter, type FilterReader, loadFilterParser } from '../../engine/bridge/filter-check.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel, TableModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, Run } from '../../store/tables.ts';
import { summarize } from '../approvals/approval-subject.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireConnection } from '../connections/connections.access.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { activeRunInto } from './bridge.repo.ts';
import type { BridgeRunBody } from './bridge.schemas.ts';
import type { BridgeAnonymizer } from './bridge-anonymize.ts';
import { filterModeOf, identityOf } from './bridge-identity.ts';
import type { BridgeParams } from './bridge-params.ts';

/** A UUID (v4 layout) derived from the request: the same request always names the same subject. */
function subjectOf(projectId: string, request: unknown): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([projectId, request]))
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export type BridgeService = ReturnType<typeof createBridgeService>;

export function createBridgeService(deps: {
  db: Db;
  audit: AuditService;
  connections: Pick<ConnectionsService, 'withTarget' | 'dialectOf'>;
  runs: Pick<RunsService, 'start'>;
  anonymizer: Pick<BridgeAnonymizer, 'check'>;
}) {
  const { db, connections, runs, anonymizer } = deps;

  /** A connection of the project, by a body field: 404 when invisible, 422 when of another project. */
  async function connectionIn(
    actor: Actor,
    projectId: string,
    id: string,
    field: string,
  ): Promise<Connection> {
    const { connection } = await requireConnection(db, actor, id, 'project.read');
    if (connection.project_id !== projectId)
      throw invalid(['body', field], 'The connection belongs to another project', 'not_in_project');
    return connection;
  }

  /**
   * The request's problems against the source's schema, each at its place in the body, and its
   * filters as the copy will write them (deparsed, read under the source's `filterMode`).
   */
  function problemsOf(
    body: BridgeRunBody,
    source: SchemaModel,
    target: SchemaModel,
    filterMode: string,
    readFilter: FilterReader,
  ): { items: ValidationItem[]; filterSql: Record<string, string>; subsetWhereSql?: string } {
    const items: ValidationItem[] = [];
    const filterSql: Record<string, string> = {};
    let subsetWhereSql: string | undefined;
    const readAs = (table: TableModel) => ({
      schema: table.schema,
      name: table.name,
      columns: table.columns.map((c) => c.name),
    });
    const { tables, problems } = resolveTables(source, target, body);
    for (const p of problems) items.push({ loc: p.loc, msg: p.message, type: 'invalid_table' });
    const copied = new Map(tables.map((t) => [displayName(t), t]));
    const findCopied = (name: string) => copied.get(name) ?? tables.find((t) => t.name === name);
    for (const [name, condition] of Object.entries(body.filters ?? {})) {
      const table = findCopied(name);
      const verdict = table
        ? checkFilter(readFilter, condition, readAs(table), filterMode)
        : { ok: false as const, message: `${name} is not one of the copied tables` };
      if (!verdict.ok)
        items.push({ loc: ['body', 'filters', name], msg: verdict.message, type: 'invalid_filter' });
      else filterSql[name] = verdict.sql;
    }
    if (body.subset) {
      const start = findCopied(body.subset.table);
      if (!start)
        items.push({
          loc: ['body', 'subset', 'table'],
          msg: `${body.subset.table} is not one of the copied tables`,
          type: 'invalid_subset',
        });
      else if (body.subset.where !== undefined) {
        const verdict = checkFilter(readFilter, body.subset.where, readAs(start), filterMode);
        if (!verdict.ok)
          items.push({ loc: ['body', 'subset', 'where'], msg: verdict.message, type: 'invalid_filter' });
        else subsetWhereSql = verdict.sql;
      }
      const keyless = tables.filter((t) => t.primary_key === null).map(displayName);
      if (keyless.length > 0)
        items.push({
          loc: ['body', 'subset'],
          msg: `A subset follows rows by primary key; these copied tables have none: ${keyless.join(', ')}`,
          type: 'invalid_subset',
        });
    }
    if (body.mode === 'upsert') {
      const keyless = tables
        .filter((t) => (targetTableOf(t, source, target) ?? t).primary_key === null)
        .map(displayName);
      if (keyless.length > 0)
        items.push({
          loc: ['body', 'mode'],
          msg: `upsert matches rows by primary key; these target tables have none: ${keyless.join(', ')}`,
          type: 'invalid_mode',
        });
    }
    return { items, filterSql, ...(subsetWhereSql !== undefined && { subsetWhereSql }) };
  }

  return {
    async run(actor: Actor, projectId: string, body: BridgeRunBody): Promise<Run> {
      // With the target, so that a just-in-time grant on that connection counts (it is what is written).
      await requireProject(db, actor, projectId, 'bridge.run', { connectionId: body.target_connection_id });
      const source = await connectionIn(actor, projectId, body.source_connection_id, 'source_connection_id');
      const target = await connectionIn(actor, projectId, body.target_connection_id, 'target_connection_id');
      if (source.id === target.id)
        throw invalid(
          ['body', 'target_connection_id'],
          'The source and the target must be different connections',
          'same_connection',
        );
      await loadFilterParser();
      // The schema before the row session, never inside it: introspecting takes a client of the
      // connection's pool too, so as many concurrent requests as the pool has clients would each hold
      // a session and wait for a second client until the connect timeout (502s under load).
      const look = (connection: Connection) =>
        connections.withTarget(connection, async (handle) => {
          const model = await handle.introspect();
          const session = await handle.rowSession();
          try {
            return {
              identity: await identityOf(session, handle),
              filterMode: await filterModeOf(session, handle),
              model,
            };
          } finally {
            await session.close();
          }
        });
      const [from, to] = [await look(source), await look(target)];
      if (from.identity === to.identity)
        throw invalid(
          ['body', 'target_connection_id'],
          'The source and the target reach the same database: a copy would overwrite what it reads',
          'same_database',
        );
      const checked = problemsOf(
        body,
        from.model,
        to.model,
        from.filterMode,
        connections.dialectOf(source).rows.readFilter,
      );
      if (checked.items.length > 0) throw new AppError('validation', checked.items);
      // A config of any connection of the project (docs/contract.md §9.3), checked against the source as it is.
      const anonymize =
        body.anonymize_config_id != null
          ? {
              config_id: body.anonymize_config_id,
              binding: await anonymizer.check(actor, projectId, body.anonymize_config_id, {
                connection: source,
                model: from.model,
              }),
            }
          : undefined;

      const params: BridgeParams = {
        source_connection_id: source.id,
        target_connection_id: target.id,
        ...(body.tables !== undefined && { tables: body.tables }),
        mode: body.mode ?? 'replace',
        ...(body.filters !== undefined && { filters: body.filters }),
        ...(body.subset !== undefined && { subset: body.subset }),
        // What the copy writes into its reads: the conditions as parsed, never the text received.
        ...(body.filters !== undefined && { filter_sql: checked.filterSql }),
        ...(checked.subsetWhereSql !== undefined && { subset_where_sql: checked.subsetWhereSql }),
        source_filter_mode: from.filterMode,
        create_tables: body.create_tables === true,
        ...(anonymize && { anonymize }),
        source_schema_hash: schemaHash(from.model),
        target_schema_hash: schemaHash(to.model),
      };
      // The request names the run's subject (a resume matches it); the bindings go into the approval.
      const request = {
        ...params,
        anonymize: anonymize?.config_id,
        source_schema_hash: undefined,
        target_schema_hash: undefined,
      };
      const subjectId = subjectOf(projectId, request);
      const tables = resolveTables(from.model, to.model, body).tables.map(displayName);
      return runs.start(actor, {
        projectId,
        kind: 'bridge_run',
        subject: {
          kind: 'bridge',
          id: subjectId,
          title: `copy of ${tables.length} table${tables.length === 1 ? '' : 's'} ${source.name} → ${target.name}`,
          summary: summarize(
            `${params.mode}${params.create_tables ? ', creating missing tables' : ''}${anonymize ? ', anonymized' : ''}: ${tables.join(', ')}`,
          ),
        },
        params,
        contentHash: createHash('sha256')
          .update(
            JSON.stringify([
              request,
              params.source_schema_hash,
              params.target_schema_hash,
              ...(anonymize ? [anonymize.binding] : []),
            ]),
          )
          .digest('hex'),
        unit: 'rows',
        audit: {
          action: 'bridge.run',
          target: { type: 'connection', id: target.id, label: target.name },
          details: {
            source_connection_id: source.id,
            mode: params.mode,
            tables: params.tables ?? null,
            create_tables: params.create_tables,
            subset: params.subset ?? null,
            anonymize_config_id: anonymize?.config_id ?? null,
          },
        },
        // One copy at a time into a target: the target's row locks the check against a concurrent one.
        lock: async (trx) => {
          await trx.selectFrom('connections').select('id').where('id', '=', target.id).forUpdate().execute();
          const busy = await activeRunInto(trx, target.id);
          if (busy)
            throw conflict(`Bridge run ${busy.id} is ${busy.status} into this target; wait for it to end`);
        },
      });
    },
  };
}
