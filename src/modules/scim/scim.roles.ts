// Roles from group mappings (docs/contract.md §12): a SCIM-managed user's organization role is the highest one
// the mappings of their groups give (`member` without any), and their role in each project named by
// a mapping is the highest one mapped for it. Recomputed in the transaction of every membership or
// mapping change, audited as the system actor. SCIM never grants or removes `owner`: owners are left
// as they are.
//
// A membership SCIM sets is marked `scim_managed`, and SCIM takes back only what it gave: when a
// mapping is dropped (or the user leaves its group) the project roles it gave go at once, in projects
// no mapping names any more too. A role an admin gave by hand stays: SCIM raises it where a mapping
// gives more (keeping it in `role_by_hand`), never lowers it, and returns to it when it lets go.

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
        await syncProjects(trx, orgId, user, wanted);
      }
    },
  };

  async function syncProjects(
    trx: Db,
    orgId: string,
    user: { id: string; email: string },
    wanted: Map<string, ProjectRole>,
  ): Promise<void> {
    // Where the mappings give a role now, and what SCIM gave before (a dropped mapping's among them).
    const wantedIds = [...wanted.keys()];
    const current = await trx
      .selectFrom('project_members')
      .select(['project_id', 'role', 'scim_managed', 'role_by_hand'])
      .where('user_id', '=', user.id)
      .where((eb) =>
        wantedIds.length > 0
          ? eb.or([eb('scim_managed', '=', true), eb('project_id', 'in', wantedIds)])
          : eb('scim_managed', '=', true),
      )
      .execute();
    const projects = new Set([
      ...wanted.keys(),
      ...current.filter((m) => m.scim_managed).map((m) => m.project_id),
    ]);
    for (const projectId of projects) {
      const mapped = wanted.get(projectId);
      const held = current.find((m) => m.project_id === projectId);
      // A role given by hand stays the least the user holds: before SCIM took over, or as it is now.
      const byHand = held?.scim_managed ? held.role_by_hand : (held?.role ?? null);
      const membership = () =>
        trx.updateTable('project_members').where('user_id', '=', user.id).where('project_id', '=', projectId);
      let role: ProjectRole | null;
      if (mapped === undefined) {
        // SCIM lets go of what it gave: back to the role given by hand, or no membership.
        role = byHand;
        if (byHand === null) {
          await trx
            .deleteFrom('project_members')
            .where('user_id', '=', user.id)
            .where('project_id', '=', projectId)
            .execute();
        } else {
          await membership().set({ role: byHand, scim_managed: false, role_by_hand: null }).execute();
        }
      } else {
        role = byHand && PROJECT_RANK[byHand] > PROJECT_RANK[mapped] ? byHand : mapped;
        if (held === undefined) {
          await trx
            .insertInto('project_members')
            .values({ project_id: projectId, user_id: user.id, role, scim_managed: true, created_at: now() })
            .execute();
        } else if (held.role !== role || !held.scim_managed) {
          await membership().set({ role, scim_managed: true, role_by_hand: byHand }).execute();
        }
      }
      if (role === (held?.role ?? null)) continue; // taken over or let go of as it was: no change of role
      await audit.record(trx, ACTOR, {
        action: role === null ? 'project.member.remove' : 'project.member.set',
        orgId,
        projectId,
        target: { type: 'user', id: user.id, label: user.email },
        details: { role, source: 'scim' },
      });
    }
  }
}
