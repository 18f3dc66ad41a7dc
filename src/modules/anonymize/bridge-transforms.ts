// What the bridge (docs/contract.md §9.3, `anonymize_config_id`) needs of a config: checked when a copy is asked
// for (a config of the bridge's project, its rules against the source's schema, strict mode's PII
// scan of the source), then compiled with the config's key when the run starts into per-table batch
// transforms that the bridge's row pipeline applies in flight, so nothing un-anonymised reaches the
// target. Table names are matched as config-check matches them, so a config saved on a MySQL
// connection applies to a PostgreSQL source's `public` tables and the other way round.
// Implements modules/bridge/bridge-anonymize.ts (structurally: the bridge owns that interface).
import { createHash } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, notFound } from '../../core/errors.ts';
import { type CheckedRules, checkConfigRules } from '../../engine/anonymize/config-check.ts';
import { canonicalJson } from '../../engine/anonymize/keyed.ts';
import { planRun, strictViolations } from '../../engine/anonymize/run-plan.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import type { AnonymizeConfig, Connection } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { RunFailed } from '../runs/run-handler.ts';
import { findConfig, findConfigById } from './anonymize.repo.ts';
import { openKey } from './config-key.ts';
import { scanColumns } from './pii-scan.ts';
import { type StartedPool, startTransformPool, type TransformPool } from './transform-pool.ts';

const LOC = ['body', 'anonymize_config_id'];

/** What a bridge approval binds of a config: its rules as stored and its key's id (never the key). */
export function configBinding(config: Pick<AnonymizeConfig, 'rules' | 'key_id'>): string {
  return createHash('sha256')
    .update(canonicalJson(['bridge', config.rules, config.key_id]))
    .digest('hex');
}

/** The rules of `config` checked against `source`, with the run plan; the problems as messages. */
function planOn(config: AnonymizeConfig, source: SchemaModel) {
  const { problems, checked } = checkConfigRules(source, config.rules);
  if (problems.length > 0)
    return {
      problems: problems.map((p) => {
        const rule = typeof p.loc[1] === 'number' ? config.rules[p.loc[1]] : undefined;
        return `rule ${p.loc[1]}${rule ? ` (${rule.table}.${rule.column})` : ''} does not match the source: ${p.msg}`;
      }),
      checked,
      plan: null,
    };
  const plan = planRun(source, checked);
  return { problems: plan.uniqueViolations.map((v) => v.message), checked, plan };
}

export function createBridgeAnonymizer(deps: {
  db: Db;
  box: SecretBox;
  connections: Pick<ConnectionsService, 'withTarget' | 'dialectOf'>;
}) {
  const { db, box, connections } = deps;
  return {
    async check(
      actor: Actor,
      projectId: string,
      configId: string,
      source: { connection: Connection; model: SchemaModel },
    ): Promise<string> {
      const config = await findConfig(db, actor.principal.orgId, configId);
      if (!config || config.project_id !== projectId) throw notFound('Anonymization config');
      const { problems, checked } = planOn(config, source.model);
      if (problems.length > 0)
        throw new AppError(
          'validation',
          problems.map((msg) => ({ loc: LOC, msg, type: 'config_mismatch' })),
        );
      if (config.strict) {
        const uncovered = strictViolations(
          await scanColumns(connections, source.connection, source.model, checked as CheckedRules),
        );
        if (uncovered.length > 0)
          throw conflict(
            `Strict mode: these columns of the source look personal and no rule of the config covers them: ${uncovered
              .map((c) => `${c.table}.${c.column} (${c.category})`)
              .join(', ')}`,
          );
      }
      return configBinding(config);
    },

    warmUp: (): StartedPool => startTransformPool(),

    async open(configId: string, binding: string, source: SchemaModel, warm?: { close(): Promise<void> }) {
      const started = warm && isStartedPool(warm) ? warm : undefined;
      try {
        return await compiled(configId, binding, source, started);
      } catch (error) {
        await started?.close();
        throw error;
      }
    },
  };

  async function compiled(configId: string, binding: string, source: SchemaModel, started?: StartedPool) {
    const config = await findConfigById(db, configId);
    if (!config) throw new RunFailed('The anonymization config was deleted; nothing was written', {});
    if (configBinding(config) !== binding)
      throw new RunFailed(
        'The anonymization config (its rules or key) changed since this copy was requested: request it again; nothing was written',
        {},
      );
    const { problems, plan } = planOn(config, source);
    if (problems.length > 0 || !plan)
      throw new RunFailed(`The anonymization config: ${problems.join('; ')}; nothing was written`, {});
    const key = openKey(box, config.id, config.key_sealed);
    const columnsOf = new Map(
      plan.groups.flatMap((g) => g.tables.map((t) => [t.table, t.columns.map((c) => c.column)] as const)),
    );
    // The transforms run on worker threads, started when the run began (warmUp) or now: each loads
    // and compiles its modules while the bridge reads the schemas and readies the target.
    const pool: TransformPool | undefined =
      columnsOf.size > 0 ? (started ?? startTransformPool()).load(plan, key) : undefined;
    if (!pool) await started?.close();
    return {
      forTable(table: string, columns: readonly string[]) {
        if (!pool || !columnsOf.get(table)?.some((c) => columns.includes(c))) return null;
        return pool.transform(table, columns);
      },
      close: async () => {
        await pool?.close();
      },
    };
  }
}

const isStartedPool = (warm: object): warm is StartedPool => 'load' in warm;
