// Anonymization configs (docs/contract.md §9.2): rules for one connection of a project, checked against its live
// schema when saved (engine/anonymize/config-check.ts), with the key of the deterministic
// transformers sealed and write-only; listed, read, edited (a change of rules or key voids the
// approvals bound to them) and deleted. The PII scan and the preview read bounded samples.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict } from '../../core/errors.ts';
import { type CheckedRules, type ConfigRule, checkConfigRules } from '../../engine/anonymize/config-check.ts';
import { planRun, strictViolations } from '../../engine/anonymize/run-plan.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import type { AnonymizeConfig, Connection, Run } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import { summarize } from '../approvals/approval-subject.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createConnectionConfigs } from '../connections/connection-configs.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { RunsService } from '../runs/runs.service.ts';
import type { CreateConfigBody, EditConfigBody, PreviewBody } from './anonymize.schemas.ts';
import type { AnonymizeRunParams } from './anonymize-run.ts';
import { generateKey, keyId, openKey, sealKey } from './config-key.ts';
import { scanColumns } from './pii-scan.ts';
import { previewRules } from './preview.ts';
import { runContentHash } from './run-content.ts';

export type AnonymizeService = ReturnType<typeof createAnonymizeService>;

export function createAnonymizeService(deps: {
  db: Db;
  audit: AuditService;
  box: SecretBox;
  connections: Pick<ConnectionsService, 'findById' | 'withTarget' | 'introspect' | 'dialectOf'>;
  gate: Pick<ApprovalGate, 'voidApprovals'>;
  runs: Pick<RunsService, 'start'>;
  now: () => Date;
}) {
  const { box, connections, runs } = deps;
  const configs = createConnectionConfigs(deps, {
    table: 'anonymize_configs',
    resource: 'Anonymization config',
    auditType: 'anonymize_config',
    nameTaken: (name) => `An anonymization config named "${name}" already exists in this project`,
    actions: {
      create: 'anonymize.create',
      read: 'anonymize.read',
      edit: 'anonymize.edit',
      delete: 'anonymize.delete',
    },
  });
  const { load, connectionOf, event } = configs;

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

  return {
    async create(actor: Actor, body: CreateConfigBody): Promise<AnonymizeConfig> {
      const connection = await configs.connectionForCreate(actor, body);
      const { rules, propagated } = await checked(connection, body.rules);
      const id = randomUUID();
      const key = body.key ?? generateKey();
      return configs.create(
        actor,
        { id, projectId: body.project_id, connectionId: connection.id, name: body.name },
        {
          rules: JSON.stringify(rules),
          propagated: JSON.stringify(propagated),
          strict: body.strict ?? false,
          key_sealed: sealKey(box, id, key),
          key_id: keyId(key),
        },
        (config) => ({
          rules: rules.length,
          propagated: propagated.length,
          strict: config.strict,
          key_generated: body.key === undefined,
        }),
      );
    },

    list: configs.list,
    get: configs.get,

    /** Renames, replaces rules (checked again), the key or strict mode; rules or key voids approvals. */
    async edit(actor: Actor, id: string, body: EditConfigBody): Promise<AnonymizeConfig> {
      const current = await load(actor, id, 'anonymize.edit');
      const recheck =
        body.rules !== undefined ? await checked(await connectionOf(current), body.rules) : null;
      return configs.update(actor, id, {
        name: body.name,
        changes: (locked) => ({
          ...(recheck && {
            rules: JSON.stringify(recheck.rules),
            propagated: JSON.stringify(recheck.propagated),
          }),
          ...(body.key !== undefined && { key_sealed: sealKey(box, id, body.key), key_id: keyId(body.key) }),
          strict: body.strict ?? locked.strict,
        }),
        contentChanged: recheck !== null || body.key !== undefined,
        details: { rules_changed: recheck !== null, key_replaced: body.key !== undefined },
      });
    },

    remove: configs.remove,

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
      return runs.start(actor, {
        projectId: config.project_id,
        kind: 'anonymize_run',
        subject: {
          kind: 'anonymize_config',
          id: config.id,
          title: config.name,
          summary: summarize(config.rules.map((r) => `${r.table}.${r.column}: ${r.transformer}`).join(', ')),
        },
        params,
        contentHash: runContentHash(config, params.target_schema_hash),
        unit: 'rows',
        audit: event('anonymize.run', config, { strict: config.strict }),
      });
    },
  };
}
