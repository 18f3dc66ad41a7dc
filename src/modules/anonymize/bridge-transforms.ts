// What the bridge (API §9.3, `anonymize_config_id`) needs of a config when its run starts: the
// config's rules checked against the source's schema (a failure names what does not match), the
// run plan, and the per-row and per-batch transforms of every table with a rule, compiled with the
// config's key. The bridge's row pipeline calls them in flight, so nothing un-anonymised reaches
// the target. Table names are matched as config-check matches them, so a config saved on a MySQL
// connection applies to a PostgreSQL source's `public` tables and the other way round.
import { AppError } from '../../core/errors.ts';
import { checkConfigRules } from '../../engine/anonymize/config-check.ts';
import { compileTableTransforms, type TableTransform } from '../../engine/anonymize/row-transform.ts';
import { planRun } from '../../engine/anonymize/run-plan.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import { findConfig } from './anonymize.repo.ts';
import { openKey } from './config-key.ts';

const LOC = ['body', 'anonymize_config_id'];

/** The transforms of config `configId` for a source of schema `source`, by table (as the source names it). */
export async function bridgeTransforms(
  deps: { db: Db; box: SecretBox },
  scope: { orgId: string; projectId: string },
  configId: string,
  source: SchemaModel,
): Promise<Map<string, TableTransform>> {
  const config = await findConfig(deps.db, scope.orgId, configId);
  if (!config || config.project_id !== scope.projectId)
    throw new AppError('validation', [
      { loc: LOC, msg: 'Anonymization config not found in this project', type: 'not_found' },
    ]);
  const { problems, checked } = checkConfigRules(source, config.rules);
  if (problems.length > 0)
    throw new AppError(
      'validation',
      problems.map((p) => ({
        loc: LOC,
        msg: `Rule ${p.loc[1]} does not match the source: ${p.msg}`,
        type: p.type,
      })),
    );
  const plan = planRun(source, checked);
  if (plan.uniqueViolations.length > 0)
    throw new AppError(
      'validation',
      plan.uniqueViolations.map((v) => ({ loc: LOC, msg: v.message, type: 'unique_unsupported' })),
    );
  return compileTableTransforms(plan, openKey(deps.box, config.id, config.key_sealed));
}
