// Anonymization configs (API §9.2): rules for one connection of a project, checked against its live
// schema when saved (engine/anonymize/config-check.ts), with the key of the deterministic
// transformers sealed and write-only; listed, read, edited (a change of rules or key voids the
// approvals bound to them) and deleted. The PII scan and the preview read bounded samples.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, invalid, notFound } from '../../core/errors.ts';
import { type CheckedRules, type ConfigRule, checkConfigRules } from '../../engine/anonymize/config-check.ts';
import { planRun, strictViolations } from '../../engine/anonymize/run-plan.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { Action } from '../../security/policy.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { AnonymizeConfig, Connection, Run } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireConnection } from '../connections/connections.access.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { RunsService } from '../runs/runs.service.ts';
import {
  deleteConfig,
  findConfig,
  insertConfig,
  lockConfig,
  nameTaken,
  projectConfigsQuery,
  updateConfig,
} from './anonymize.repo.ts';
import type { CreateConfigBody, EditConfigBody, PreviewBody } from './anonymize.schemas.ts';
import type { AnonymizeRunParams } from './anonymize-run.ts';
import { generateKey, keyId, openKey, sealKey } from './config-key.ts';
import { scanColumns } from './pii-scan.ts';
import { previewRules } from './preview.ts';
import { runContentHash } from './run-content.ts';

const RESOURCE = 'Anonymization config';

export type AnonymizeService = ReturnType<typeof createAnonymizeService>;

export function createAnonymizeService(deps: {
  db: Db;
  audit: AuditService;
  box: SecretBox;
  connections: Pick<ConnectionsService, 'findById' | 'withTarget' | 'introspect'>;
  gate: Pick<ApprovalGate, 'voidApprovals' | 'gate'>;
  runs: Pick<RunsService, 'create' | 'enqueue'>;
  now: () => Date;
}) {
  const { db, audit, box, connections, gate, runs, now } = deps;

  async function load(actor: Actor, id: string, action: Action): Promise<AnonymizeConfig> {
    const config = await findConfig(db, actor.principal.orgId, id);
    if (!config) throw notFound(RESOURCE);
    try {
      await requireProject(db, actor, config.project_id, action, { connectionId: config.connection_id });
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw notFound(RESOURCE);
      throw error;
    }
    return config;
  }

  async function connectionOf(config: AnonymizeConfig): Promise<Connection> {
    const connection = await connections.findById(config.connection_id);
    if (!connection) throw notFound('Connection');
    return connection;
  }

  /** The rules checked against the connection's schema as it is now; 422 naming every problem. */
  async function checked(connection: Connection, rules: ConfigRule[]): Promise<CheckedRules> {
    const model = await connections.introspect(connection);
    const { problems, checked } = checkConfigRules(model, rules);
    if (problems.length > 0)
      throw new AppError(
        'validation',
        problems.map((p) => ({ loc: ['body', ...p.loc], msg: p.msg, type: p.type })),
      );
    return checked;
  }

  function event(action: string, config: AnonymizeConfig, details?: Record<string, unknown>) {
    return {
      action,
      projectId: config.project_id,
      target: { type: 'anonymize_config', id: config.id, label: config.name },
      details,
    };
  }

  return {
    async create(actor: Actor, body: CreateConfigBody): Promise<AnonymizeConfig> {
      await requireProject(db, actor, body.project_id, 'anonymize.create', {
        connectionId: body.connection_id,
      });
      const { connection } = await requireConnection(db, actor, body.connection_id, 'anonymize.create').catch(
        (error) => {
          if (error instanceof AppError && error.code === 'not_found')
            throw invalid(['body', 'connection_id'], 'Connection not found in this project', 'not_found');
          throw error;
        },
      );
      if (connection.project_id !== body.project_id)
        throw invalid(['body', 'connection_id'], 'Connection not found in this project', 'not_found');
      const { rules, propagated } = await checked(connection, body.rules);
      const id = randomUUID();
      const key = body.key ?? generateKey();
      const at = now();
      return db.transaction().execute(async (trx) => {
        if (await nameTaken(trx, body.project_id, body.name))
          throw conflict(`An anonymization config named "${body.name}" already exists in this project`);
        const config = await insertConfig(trx, {
          id,
          org_id: actor.principal.orgId,
          project_id: body.project_id,
          connection_id: connection.id,
          name: body.name,
          rules: JSON.stringify(rules),
          propagated: JSON.stringify(propagated),
          strict: body.strict ?? false,
          key_sealed: sealKey(box, id, key),
          key_id: keyId(key),
          created_by: actor.principal.userId,
          created_at: at,
          updated_at: at,
        });
        await audit.record(
          trx,
          actor,
          event('anonymize_config.create', config, {
            rules: rules.length,
            propagated: propagated.length,
            strict: config.strict,
            key_generated: body.key === undefined,
          }),
        );
        return config;
      });
    },

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'anonymize.read');
      return paginate(projectConfigsQuery(db, projectId), page);
    },

    get: (actor: Actor, id: string) => load(actor, id, 'anonymize.read'),

    /** Renames, replaces rules (checked again), the key or strict mode; rules or key voids approvals. */
    async edit(actor: Actor, id: string, body: EditConfigBody): Promise<AnonymizeConfig> {
      const current = await load(actor, id, 'anonymize.edit');
      const recheck =
        body.rules !== undefined ? await checked(await connectionOf(current), body.rules) : null;
      return db.transaction().execute(async (trx) => {
        const locked = await lockConfig(trx, id);
        if (!locked) throw notFound(RESOURCE);
        if (body.name !== undefined && (await nameTaken(trx, locked.project_id, body.name, id)))
          throw conflict(`An anonymization config named "${body.name}" already exists in this project`);
        const contentChanged = recheck !== null || body.key !== undefined;
        const updated = await updateConfig(trx, id, {
          name: body.name ?? locked.name,
          ...(recheck && {
            rules: JSON.stringify(recheck.rules),
            propagated: JSON.stringify(recheck.propagated),
          }),
          ...(body.key !== undefined && { key_sealed: sealKey(box, id, body.key), key_id: keyId(body.key) }),
          strict: body.strict ?? locked.strict,
          updated_at: now(),
        });
        const voided = contentChanged ? await gate.voidApprovals(trx, actor, id) : 0;
        await audit.record(
          trx,
          actor,
          event('anonymize_config.update', updated, {
            rules_changed: recheck !== null,
            key_replaced: body.key !== undefined,
            approvals_voided: voided,
          }),
        );
        return updated;
      });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await load(actor, id, 'anonymize.delete');
      await db.transaction().execute(async (trx) => {
        const locked = await lockConfig(trx, id);
        if (!locked) throw notFound(RESOURCE);
        await gate.voidApprovals(trx, actor, id);
        await deleteConfig(trx, id);
        await audit.record(trx, actor, event('anonymize_config.delete', locked));
      });
    },

    /** Columns that look personal by name or by a bounded sample of their values, and whether a rule covers them. */
    async piiScan(actor: Actor, id: string) {
      const config = await load(actor, id, 'anonymize.read');
      const connection = await connectionOf(config);
      const model = await connections.introspect(connection);
      return { columns: await scanColumns(connections, connection, model, config) };
    },

    /** Sampled values of each rule's column, before and after; nothing is written. */
    async preview(actor: Actor, id: string, body: PreviewBody) {
      const config = await load(actor, id, 'anonymize.preview');
      const connection = await connectionOf(config);
      const model = await connections.introspect(connection);
      const key = openKey(box, config.id, config.key_sealed);
      return {
        samples: await previewRules(connections, connection, model, config.rules, key, body.rows ?? 10),
      };
    },

    /**
     * Anonymises the config's connection in place, as a run (anonymize-run.ts). Refused before
     * anything is queued: rules that no longer match the schema or cannot keep a unique column
     * distinct (422), and with `strict` a personal column no rule covers (409 naming them). Waits
     * for approval where the policy says so, bound to the rules, the key id and the schema hash.
     */
    async run(actor: Actor, id: string): Promise<Run> {
      const config = await load(actor, id, 'anonymize.run');
      const connection = await connectionOf(config);
      const model = await connections.introspect(connection);
      const checkedRules = await checked(connection, config.rules);
      const plan = planRun(model, checkedRules);
      if (plan.uniqueViolations.length > 0)
        throw new AppError(
          'validation',
          plan.uniqueViolations.map((v) => ({ loc: ['body'], msg: v.message, type: 'unique_unsupported' })),
        );
      if (config.strict) {
        const uncovered = strictViolations(await scanColumns(connections, connection, model, config));
        if (uncovered.length > 0)
          throw conflict(
            `Strict mode: these columns look personal and no rule covers them: ${uncovered
              .map((c) => `${c.table}.${c.column} (${c.category})`)
              .join(', ')}`,
          );
      }
      const params: AnonymizeRunParams = {
        config_id: config.id,
        connection_id: connection.id,
        target_schema_hash: schemaHash(model),
      };
      const created = await db.transaction().execute(async (trx) => {
        const verdict = await gate.gate(trx, actor, {
          projectId: config.project_id,
          operation: 'anonymize_run',
          writesTo: connection,
          subjectId: config.id,
          contentHash: runContentHash(config, params.target_schema_hash),
        });
        const made = await runs.create(trx, actor, {
          projectId: config.project_id,
          kind: 'anonymize_run',
          subjectId: config.id,
          unit: 'rows',
          params: params as unknown as Record<string, unknown>,
          awaitingApprovalId: verdict.decision === 'await' ? verdict.approvalId : null,
        });
        await audit.record(
          trx,
          actor,
          event('anonymize.run', config, { run_id: made.id, status: made.status, strict: config.strict }),
        );
        return made;
      });
      await runs.enqueue(created);
      return created;
    },
  };
}
