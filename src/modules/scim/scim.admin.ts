// The organization's SCIM settings, for its admins: the token (shown once, replaced at once) and the
// group mappings (a change recomputes the roles of every SCIM-managed user at once).
import type { Actor } from '../../core/actors.ts';
import { invalid } from '../../core/errors.ts';
import type { OrgRole } from '../../core/vocabulary.ts';
import type { Db } from '../../store/db.ts';
import type { GroupMapping } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { ScimRoles } from './scim.roles.ts';
import { toScimConfig } from './scim.schemas.ts';
import { newScimToken, storeScimToken } from './scim.tokens.ts';

export type ScimAdmin = ReturnType<typeof createScimAdmin>;

export function createScimAdmin(deps: {
  db: Db;
  audit: AuditService;
  roles: ScimRoles;
  now: () => Date;
  baseUrl: string;
}) {
  const { db, audit, roles, now, baseUrl } = deps;

  async function read(executor: Db, orgId: string) {
    const config = await executor
      .selectFrom('scim_configs')
      .select(['token_hash', 'token_created_at', 'group_mappings'])
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return toScimConfig(baseUrl, config);
  }

  return {
    config: (actor: Actor) => read(db, actor.principal.orgId),

    async createToken(actor: Actor) {
      const token = newScimToken();
      const at = now();
      await db.transaction().execute(async (trx) => {
        await storeScimToken(trx, actor.principal.orgId, token, at);
        await audit.record(trx, actor, {
          action: 'scim.token.create',
          target: { type: 'scim', id: actor.principal.orgId },
        });
      });
      return { token, base_url: baseUrl, created_at: at.toISOString().replace(/\.\d{3}Z$/, 'Z') };
    },

    async setMappings(actor: Actor, requested: (Omit<GroupMapping, 'org_role'> & { org_role?: OrgRole })[]) {
      const orgId = actor.principal.orgId;
      for (const [index, mapping] of requested.entries())
        if (mapping.org_role === 'owner')
          throw invalid(['body', 'mappings', index, 'org_role'], 'SCIM never grants owner');
      const mappings = requested as GroupMapping[];
      const projectIds = [...new Set(mappings.flatMap((m) => (m.projects ?? []).map((p) => p.project_id)))];
      return db.transaction().execute(async (trx) => {
        if (projectIds.length > 0) {
          const found = await trx
            .selectFrom('projects')
            .select('id')
            .where('org_id', '=', orgId)
            .where('id', 'in', projectIds)
            .execute();
          const missing = projectIds.filter((id) => !found.some((p) => p.id === id));
          if (missing.length > 0)
            throw invalid(['body', 'mappings'], `No project has the id ${missing.join(', ')}`);
        }
        const at = now();
        const json = JSON.stringify(mappings);
        await trx
          .insertInto('scim_configs')
          .values({ org_id: orgId, group_mappings: json, updated_at: at })
          .onConflict((oc) => oc.column('org_id').doUpdateSet({ group_mappings: json, updated_at: at }))
          .execute();
        await audit.record(trx, actor, {
          action: 'scim.group_mappings.update',
          target: { type: 'scim', id: orgId },
          details: { mappings: mappings.length },
        });
        await roles.recompute(trx, orgId);
        return read(trx, orgId);
      });
    },
  };
}
