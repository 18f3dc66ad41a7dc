// Roles from group mappings (API §12): a SCIM-managed user's organization role is the highest one
// the mappings of their groups give (`member` without any), and their role in each project named by
// a mapping is the highest one mapped for it (no membership without one). Recomputed in the
// transaction of every membership or mapping change, audited as the system actor. SCIM never grants
// or removes `owner`: owners are left as they are. Projects no mapping names are not touched, so a
// membership an admin gave by hand there stays.

import { systemActor } from '../../core/actors.ts';
import type { OrgRole, ProjectRole } from '../../core/vocabulary.ts';
import type { Db } from '../../store/db.ts';
import type { GroupMapping } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';

const ACTOR = systemActor('scim group mapping');
const ORG_RANK: Record<Exclude<OrgRole, 'owner'>, number> = { member: 0, admin: 1 };
const PROJECT_RANK: Record<ProjectRole, number> = { viewer: 0, developer: 1, admin: 2 };

export type ScimRoles = ReturnType<typeof createScimRoles>;

/** Whether a mapping's `group` names this group: its displayName (any case) or its externalId. */
export function mappingMatches(
  mapping: GroupMapping,
  group: { display_name: string; external_id: string | null },
) {
  return (
    mapping.group.toLowerCase() === group.display_name.toLowerCase() || mapping.group === group.external_id
  );
}

export function createScimRoles(deps: { audit: AuditService; now: () => Date }) {
  const { audit, now } = deps;
  return {
    /** Recomputes the roles of `userIds` (every SCIM-managed user of the organization by default). */
    async recompute(trx: Db, orgId: string, userIds?: string[]): Promise<void> {
      if (userIds?.length === 0) return;
      const config = await trx
        .selectFrom('scim_configs')
        .select('group_mappings')
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      const mappings = config?.group_mappings ?? [];
      let query = trx
        .selectFrom('users')
        .select(['id', 'email', 'org_role'])
        .where('org_id', '=', orgId)
        .where('scim_managed', '=', true)
        .where('deleted_at', 'is', null)
        .where('org_role', '!=', 'owner');
      if (userIds) query = query.where('id', 'in', userIds);
      const users = await query.execute();
      if (users.length === 0) return;
      const memberships = await trx
        .selectFrom('scim_group_members as m')
        .innerJoin('scim_groups as g', 'g.id', 'm.group_id')
        .select(['m.user_id', 'g.display_name', 'g.external_id'])
        .where(
          'm.user_id',
          'in',
          users.map((u) => u.id),
        )
        .execute();
      const mappedProjects = new Set(mappings.flatMap((m) => (m.projects ?? []).map((p) => p.project_id)));
      for (const user of users) {
        const groups = memberships.filter((m) => m.user_id === user.id);
        const applying = mappings.filter((mapping) => groups.some((group) => mappingMatches(mapping, group)));
        const orgRole = applying.reduce<Exclude<OrgRole, 'owner'>>(
          (best, m) => (m.org_role && ORG_RANK[m.org_role] > ORG_RANK[best] ? m.org_role : best),
          'member',
        );
        if (orgRole !== user.org_role) {
          await trx
            .updateTable('users')
            .set({ org_role: orgRole, updated_at: now() })
            .where('id', '=', user.id)
            .execute();
          await audit.record(trx, ACTOR, {
            action: 'user.update',
            orgId,
            target: { type: 'user', id: user.id, label: user.email },
            details: { changes: { org_role: orgRole }, source: 'scim' },
          });
        }
        const wanted = new Map<string, ProjectRole>();
        for (const mapping of applying)
          for (const { project_id, role } of mapping.projects ?? []) {
            const held = wanted.get(project_id);
            if (!held || PROJECT_RANK[role] > PROJECT_RANK[held]) wanted.set(project_id, role);
          }
        await syncProjects(trx, orgId, user, mappedProjects, wanted);
      }
    },
  };

  async function syncProjects(
    trx: Db,
    orgId: string,
    user: { id: string; email: string },
    mappedProjects: Set<string>,
    wanted: Map<string, ProjectRole>,
  ): Promise<void> {
    if (mappedProjects.size === 0) return;
    const current = await trx
      .selectFrom('project_members')
      .select(['project_id', 'role'])
      .where('user_id', '=', user.id)
      .where('project_id', 'in', [...mappedProjects])
      .execute();
    for (const projectId of mappedProjects) {
      const role = wanted.get(projectId);
      const held = current.find((m) => m.project_id === projectId)?.role;
      if (role === held) continue;
      if (role === undefined) {
        await trx
          .deleteFrom('project_members')
          .where('user_id', '=', user.id)
          .where('project_id', '=', projectId)
          .execute();
      } else if (held === undefined) {
        await trx
          .insertInto('project_members')
          .values({ project_id: projectId, user_id: user.id, role, created_at: now() })
          .execute();
      } else {
        await trx
          .updateTable('project_members')
          .set({ role })
          .where('user_id', '=', user.id)
          .where('project_id', '=', projectId)
          .execute();
      }
      await audit.record(trx, ACTOR, {
        action: role === undefined ? 'project.member.remove' : 'project.member.set',
        orgId,
        projectId,
        target: { type: 'user', id: user.id, label: user.email },
        details: { role: role ?? null, source: 'scim' },
      });
    }
  }
}
