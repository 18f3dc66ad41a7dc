// The run handler of `bridge_run` (docs/contract.md §9.3), for the job worker. It opens a row session on each
// side, refuses a source and target that are one database (compared by the servers' identity, not
// the connection records), plans the copy on both schemas as they are now (create_tables first),
// computes the subset, then loads each table parents first, skipping those the previous failed or
// cancelled run of the same request finished. Progress is in rows, recorded at batch boundaries,
// where a cancellation stops the run (the table being loaded rolls back). Whatever happens, the
// target's foreign keys among the copied tables are restored and checked before the run ends.
// After success, a snapshot of the target is taken, of its schema read while the keys were being
// validated (with them valid), so that it is not read a third time. With an anonymization config, every table with
// a rule passes through its transforms between the two streams (bridge-anonymize.ts), so nothing
// un-anonymised is written; the config is opened before anything is. Steps that use different
// sessions and do not need each other's answers run together (both sides' introspection and
// identity; the subset, the row estimates and the target's key-rights check), which on a big copy
// is what the work around the load costs; each phase's time is logged at debug level.
import { systemActor } from '../../core/actors.ts';
import { AppError, notFound } from '../../core/errors.ts';
import type { RowSession, TargetHandle } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { displayName, type PlannedTable, planCopy, resolveTables } from '../../engine/bridge/copy-plan.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { Logger } from '../module.ts';
import { RunCancelled, type RunContext, RunFailed } from '../runs/run-handler.ts';
import { runParams } from '../runs/run-kinds.ts';
import type { SnapshotsService } from '../snapshots/snapshots.service.ts';
import { activeRunInto, liveBridgeRunIds, recordTableLoad, tablesDoneBefore } from './bridge.repo.ts';
import type { BridgeAnonymizer, InFlightAnonymization } from './bridge-anonymize.ts';
import { createMissingTables, keysAroundLoad } from './bridge-create.ts';
import { createTargetLoader, ForeignKeyRightsMissing, withKeysValid } from './bridge-load.ts';
import { BridgeParams } from './bridge-params.ts';
import { createPhaseClock, together } from './bridge-phases.ts';
import { computeSubset, type Subset } from './bridge-subset.ts';
import { loadTables } from './bridge-tables.ts';

export interface BridgeRunDeps {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
  snapshots: Pick<SnapshotsService, 'takeSnapshot'>;
  logger: Logger;
  now: () => Date;
  anonymizer: Pick<BridgeAnonymizer, 'open'>;
}

/** The server and database a session reaches (RowFormat.identitySql). */
export async function identityOf(session: RowSession, handle: TargetHandle): Promise<string> {
  const { rows } = await session.query(handle.sql.rows.identitySql);
  return `${handle.dialect}:${String((rows[0] as { identity: unknown }).identity)}`;
}

/** How a session's server reads a filter's text (RowFormat.filterModeSql); '' where nothing changes it. */
export async function filterModeOf(session: RowSession, handle: TargetHandle): Promise<string> {
  const sql = handle.sql.rows.filterModeSql;
  if (sql === null) return '';
  const { rows } = await session.query(sql);
  return String((rows[0] as { mode: unknown }).mode ?? '');
}

export function createBridgeRun(deps: BridgeRunDeps) {
  const { db, connections, now } = deps;

  return async function bridgeRun(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const params = runParams(BridgeParams, run);
    const clock = createPhaseClock();
    const time = clock.time;
    const [source, target, writing] = await time('lookup', () =>
      together(
        connections.findById(params.source_connection_id),
        connections.findById(params.target_connection_id),
        activeRunInto(db, params.target_connection_id, run.id),
      ),
    );
    if (!source || !target) throw notFound('Connection');
    if (writing?.status === 'running')
      throw new RunFailed(
        'Another bridge run is writing into the target connection; nothing was written',
        {},
      );

    const done: { table: string; rows: number }[] = [];
    let planned: PlannedTable[] = [];
    const result = (extra: Record<string, unknown> = {}) => ({
      tables: done,
      rows_total: done.reduce((sum, t) => sum + t.rows, 0),
      tables_done: done.map((t) => t.table),
      tables_not_done: planned.map((t) => t.name).filter((name) => !done.some((d) => d.table === name)),
      ...extra,
    });

    /** The target's schema as the copy left it, when read during the key validation. */
    let after: SchemaModel | undefined;
    const outcome = await connections.withTarget(source, (srcHandle) =>
      connections.withTarget(target, async (tgtHandle) => {
        const srcDialect = srcHandle.sql;
        const tgtDialect = tgtHandle.sql;
        const sessions = await time('sessions', () =>
          Promise.allSettled([srcHandle.rowSession(), tgtHandle.rowSession()]),
        );
        const [srcOpened, tgtOpened] = sessions;
        if (srcOpened.status === 'rejected' || tgtOpened.status === 'rejected') {
          for (const opened of sessions) if (opened.status === 'fulfilled') await opened.value.close();
          throw srcOpened.status === 'rejected'
            ? srcOpened.reason
            : (tgtOpened as PromiseRejectedResult).reason;
        }
        const srcSession = srcOpened.value;
        const tgtSession = tgtOpened.value;
        let subset: Subset | undefined;
        let anonymization: InFlightAnonymization | undefined;
        try {
          // Reading both schemas and both servers' identities at once: nothing is written before
          // the identities are compared, and introspection only reads.
          const [sourceIdentity, targetIdentity, sourceModel, introspectedTarget, skip, filterMode] =
            await together(
              time('identity', () => identityOf(srcSession, srcHandle)),
              time('identity', () => identityOf(tgtSession, tgtHandle)),
              time('introspect_source', () => srcHandle.introspect()),
              time('introspect_target', () => tgtHandle.introspect()),
              time('tables_done_before', () => tablesDoneBefore(db, run.subject_id!, run)),
              time('filter_mode', () => filterModeOf(srcSession, srcHandle)),
            );
          let targetModel = introspectedTarget;
          if (sourceIdentity === targetIdentity)
            throw new RunFailed(
              'The source and the target are the same database (two connections reach it); nothing was written',
              {},
            );
          // An approval was bound to both schemas as they were when the copy was asked for.
          if (
            schemaHash(sourceModel) !== params.source_schema_hash ||
            schemaHash(targetModel) !== params.target_schema_hash
          )
            throw new RunFailed(
              'The schema of the source or the target changed since this copy was requested (and approved against it): request it again; nothing was written',
              {},
            );
          // The conditions were parsed as the source read them then: under another sql_mode the same
          // text may mean something else (docs/contract.md §9.3). A run queued before they were stored parsed has none.
          const conditions = params.filters !== undefined || params.subset?.where !== undefined;
          if (
            conditions &&
            (params.source_filter_mode !== filterMode ||
              (params.filters !== undefined && params.filter_sql === undefined) ||
              (params.subset?.where !== undefined && params.subset_where_sql === undefined))
          )
            throw new RunFailed(
              "The source's sql_mode changed since this copy was requested (it decides how its filters read), or the request predates parsed filters: request it again; nothing was written",
              {},
            );
          const { tables, problems } = resolveTables(sourceModel, targetModel, params);
          if (problems.length > 0)
            throw new RunFailed(`${problems.map((p) => p.message).join('; ')}: nothing was written`, {});
          const kinds = {
            source: srcDialect.rows.valueKind,
            target: tgtDialect.rows.valueKind,
            refusal: tgtDialect.rows.refusal,
          };
          // Checked before any table is created: a refused column must not leave created tables behind.
          const dry = planCopy(sourceModel, targetModel, tables, kinds, (t) => t);
          if (dry.problems.length > 0)
            throw new RunFailed(`${dry.problems.join('; ')}: nothing was written`, {});
          if (params.anonymize)
            anonymization = await deps.anonymizer.open(
              params.anonymize.config_id,
              params.anonymize.binding,
              sourceModel,
            );
          let created: string[] = [];
          if (params.create_tables) {
            created = await time('create_tables', () =>
              createMissingTables({
                source: sourceModel,
                target: targetModel,
                tables,
                dialect: tgtDialect,
                handle: tgtHandle,
                kindOf: srcDialect.rows.valueKind,
              }),
            );
            if (created.length > 0)
              targetModel = await time('introspect_created', () => tgtHandle.introspect());
          }
          const plan = planCopy(sourceModel, targetModel, tables, kinds);
          if (plan.problems.length > 0)
            throw new RunFailed(`${plan.problems.join('; ')}: nothing was written`, {
              tables_created: created,
            });
          planned = plan.tables;

          // The request names tables as `schema.table` or bare; the plan as the source calls them.
          const plannedNamed = (name: string) =>
            planned.find((t) => t.name === name) ?? planned.find((t) => t.source.name === name);
          const filterOf = new Map(
            Object.entries(params.filter_sql ?? {}).map(([name, condition]) => [
              plannedNamed(name)?.name,
              condition,
            ]),
          );
          const carried = planned.filter((t) => skip.has(t.name));
          for (const t of carried) done.push({ table: t.name, rows: skip.get(t.name)! });
          const todo = planned.filter((t) => !skip.has(t.name));

          // The source's side (the subset, the row estimates), the target's (taking the keys off
          // is allowed) and the store's at once: each on its own session or pool.
          const subsetRequest = params.subset;
          const [stats, loader] = await together(
            time('table_stats', () =>
              // Every planned table's: a subset estimates a leaf it reads through from its parent's too.
              srcHandle.tableStats(planned.map((t) => ({ schema: t.source.schema, name: t.source.name }))),
            ),
            time('loader_setup', () =>
              createTargetLoader({
                session: tgtSession,
                spareSession: () => tgtHandle.rowSession(),
                rows: tgtDialect.rows,
                sql: tgtDialect,
                targetTables: targetModel.tables,
                copied: planned.map((t) => t.target!),
                mode: params.mode,
                keysAroundLoad: keysAroundLoad(
                  planned.filter((t) => created.includes(displayName(t.target!))).map((t) => t.target!),
                  tgtDialect,
                  { flavor: targetModel.flavor, mode: params.mode },
                ),
              }),
            ),
            !subsetRequest
              ? Promise.resolve()
              : time('subset', async () => {
                  subset = await computeSubset({
                    session: srcSession,
                    sql: srcDialect,
                    rows: srcDialect.rows,
                    tables: planned,
                    request: {
                      ...subsetRequest,
                      table: plannedNamed(subsetRequest.table)?.name ?? subsetRequest.table,
                      where: params.subset_where_sql,
                    },
                    filtered: new Set([...filterOf.keys()].filter((name) => name !== undefined)),
                    runId: run.id,
                    liveRunIds: await liveBridgeRunIds(db),
                  });
                }),
            time('store_writes', async () => {
              for (const t of carried)
                await recordTableLoad(db, {
                  runId: run.id,
                  table: t.name,
                  rows: skip.get(t.name)!,
                  carriedOver: true,
                  at: now(),
                });
            }),
          );
          const sourceRows = (t: PlannedTable) =>
            Math.max(
              0,
              stats.find((s) => s.schema === t.source.schema && s.name === t.source.name)?.rows ?? 0,
            );
          const estimate = (t: PlannedTable) => (subset ? subset.estimate(t, sourceRows) : sourceRows(t));

          const methods = new Set<string>();
          let failure: unknown;
          try {
            await loadTables({
              db,
              runId: run.id,
              now,
              context,
              clock,
              source: srcSession,
              loader,
              todo,
              whereOf: (table) => {
                const conditions = [
                  ...(filterOf.has(table.name) ? [`(${filterOf.get(table.name)})`] : []),
                  ...(subset ? [subset.whereOf(table)] : []),
                ];
                return conditions.length > 0 ? conditions.join(' AND ') : undefined;
              },
              anonymization,
              total: todo.reduce((sum, t) => sum + estimate(t), 0),
              onLoaded(table, written) {
                methods.add(written.method);
                done.push({ table: table.name, rows: written.rows });
              },
            });
          } catch (error) {
            failure = error;
          }
          // Keys come back checked whatever happened; a failure to check them is the run's failure.
          // The snapshot taken after success is of the schema as the run read it, with the keys it
          // validated (withKeysValid): a copy changes no schema (the keys set aside go back as they
          // were). Tables it created got their keys and indexes after the load: the target's schema
          // is then read again, meanwhile.
          const [keyFailures, during] = await together(
            time('validate_keys', () => loader.finish()),
            failure !== undefined
              ? Promise.resolve(undefined)
              : created.length === 0
                ? Promise.resolve(targetModel)
                : time('introspect_after', () => tgtHandle.introspect().catch(() => undefined)),
          );
          if (failure !== undefined) throw failure;
          if (keyFailures.length > 0)
            throw new RunFailed(`The rows were copied but ${keyFailures.join('; ')}`, result());
          if (during) after = withKeysValid(during, loader.validated());
          const kept = subset;
          return result({
            skipped_columns: planned
              .filter((t) => t.skippedColumns.length > 0)
              .map((t) => ({ table: t.name, columns: t.skippedColumns })),
            tables_created: created,
            load_method: [...methods].join(','),
            ...(kept && {
              // A leaf read through its parent keeps exactly the rows read from it (it has no filter).
              subset_rows: Object.fromEntries([
                ...kept.counts,
                ...done.filter((d) => kept.readThrough.has(d.table)).map((d) => [d.table, d.rows] as const),
              ]),
            }),
            ...(params.anonymize && { anonymize_config_id: params.anonymize.config_id }),
          });
        } catch (error) {
          if (error instanceof RunFailed)
            throw new RunFailed(error.message, { ...result(), ...error.result });
          // A cancelled run says what it finished too (docs/contract.md §9.3), so that running it again completes it.
          if (error instanceof RunCancelled) throw new RunCancelled(result());
          if (error instanceof ForeignKeyRightsMissing)
            throw new RunFailed(`${error.message}; nothing was written`, result());
          if (error instanceof TargetError || error instanceof AppError)
            throw new RunFailed(
              `The copy failed${done.length > 0 ? ` after ${done.map((d) => d.table).join(', ')}` : ''}: ${error.message}`,
              result(),
            );
          throw error;
        } finally {
          await anonymization?.close();
          await subset?.drop();
          await tgtSession.close();
          await srcSession.close();
        }
      }),
    );
    await time('snapshot', () =>
      deps.snapshots
        .takeSnapshot(target.id, {
          baseline: false,
          actor: systemActor('bridge_run'),
          ...(after && { model: after }),
        })
        .then((snapshot) => Object.assign(outcome, { snapshot_id: snapshot.id }))
        .catch((error: unknown) => {
          deps.logger.warn(
            { err: error, run_id: run.id },
            'snapshot after a bridge run failed; the copy itself succeeded',
          );
          Object.assign(outcome, { snapshot_id: null });
        }),
    );
    deps.logger.debug?.({ run_id: run.id, phases: clock.phases() }, 'bridge run phases');
    return outcome;
  };
}
