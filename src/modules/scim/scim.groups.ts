// Groups an identity provider pushes (Okta's Group Push, Entra ID's group provisioning): list, get,
// create, replace, PATCH of members and names, delete. Memberships are stored; every change of them
// recomputes the roles of the users it touched (scim.roles.ts), in the same transaction.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/db.ts';
import type { ScimGroup } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { ScimError, scimInvalid, scimNotFound } from './scim.errors.ts';
import { type FilterAttributes, filterToSql, parseFilter } from './scim.filter.ts';
import { patchChanges } from './scim.patch.ts';
import type { ScimRoles } from './scim.roles.ts';
import { MAX_RESULTS, SCIM_ACTOR } from './scim.users.ts';

const GROUP_FILTERS: FilterAttributes = {
  displayName: { column: 'display_name', kind: 'ci' },
  displayname: { column: 'display_name', kind: 'ci' },
  externalId: { column: 'external_id', kind: 'exact' },
  externalid: { column: 'external_id', kind: 'exact' },
};

export interface GroupWithMembers {
  group: ScimGroup;
  members: { id: string; email: string }[];
}

export type ScimGroups = ReturnType<typeof createScimGroups>;

export function createScimGroups(deps: { db: Db; audit: AuditService; roles: ScimRoles; now: () => Date }) {
  const { db, audit, roles, now } = deps;

  async function load(executor: Db, orgId: string, id: string): Promise<ScimGroup> {
    const group = /^[0-9a-f-]{36}$/i.test(id)
      ? await executor
          .selectFrom('scim_groups')
          .selectAll()
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .executeTakeFirst()
      : undefined;
    if (!group) throw scimNotFound('Group');
    return group;
  }

  async function membersOf(executor: Db, groupIds: string[]) {
    if (groupIds.length === 0) return [];
    return executor
      .selectFrom('scim_group_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.group_id', 'u.id', 'u.email'])
      .where('m.group_id', 'in', groupIds)
      .where('u.deleted_at', 'is', null)
      .orderBy('u.email')
      .execute();
  }

  async function withMembers(executor: Db, group: ScimGroup): Promise<GroupWithMembers> {
    const members = await membersOf(executor, [group.id]);
    return { group, members: members.map(({ id, email }) => ({ id, email })) };
  }

  /** The user ids of `values`, all users of this organization; an unknown one is 400. */
  async function memberIds(executor: Db, orgId: string, values: unknown): Promise<string[]> {
    const list = values === undefined || values === null ? [] : Array.isArray(values) ? values : [values];
    const ids = list.map((item) => (typeof item === 'string' ? item : (item as { value?: unknown })?.value));
    if (ids.some((id) => typeof id !== 'string')) throw scimInvalid('members must name users by "value"');
    const wanted = [...new Set(ids as string[])];
    if (wanted.length === 0) return [];
    const found = wanted.every((id) => /^[0-9a-f-]{36}$/i.test(id))
      ? await executor
          .selectFrom('users')
          .select('id')
          .where('org_id', '=', orgId)
          .where('deleted_at', 'is', null)
          .where('id', 'in', wanted)
          .execute()
      : [];
    const missing = wanted.filter((id) => !found.some((row) => row.id === id));
    if (missing.length > 0) throw scimInvalid(`No user has the id ${missing.join(', ')}`);
    return wanted;
  }

  async function setMembers(trx: Db, group: ScimGroup, add: string[], remove: string[]): Promise<string[]> {
    if (remove.length > 0)
      await trx
        .deleteFrom('scim_group_members')
        .where('group_id', '=', group.id)
        .where('user_id', 'in', remove)
        .execute();
    if (add.length > 0)
      await trx
        .insertInto('scim_group_members')
        .values(add.map((userId) => ({ group_id: group.id, user_id: userId })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    return [...add, ...remove];
  }

  async function touch(trx: Db, group: ScimGroup, action: string, details: Record<string, unknown>) {
    await audit.record(trx, SCIM_ACTOR, {
      action,
      orgId: group.org_id,
      target: { type: 'scim_group', id: group.id, label: group.display_name },
      details,
    });
  }

  async function checkNameFree(executor: Db, orgId: string, name: string, exceptId?: string) {
    let query = executor
      .selectFrom('scim_groups')
      .select('id')
      .where('org_id', '=', orgId)
      .where((eb) => eb(eb.fn('lower', ['display_name']), '=', name.toLowerCase()));
    if (exceptId) query = query.where('id', '!=', exceptId);
    if (await query.executeTakeFirst())
      throw new ScimError(409, 'A group has this displayName', 'uniqueness');
  }

  return {
    async list(orgId: string, query: { filter?: string; startIndex?: number; count?: number }) {
      const startIndex = Math.max(1, Math.trunc(query.startIndex ?? 1));
      const count = Math.min(MAX_RESULTS, Math.max(0, Math.trunc(query.count ?? MAX_RESULTS)));
      let base = db.selectFrom('scim_groups').where('org_id', '=', orgId);
      if (query.filter) base = base.where(filterToSql(parseFilter(query.filter), GROUP_FILTERS));
      const total = Number(
        (await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n,
      );
      const groups =
        count === 0
          ? []
          : await base
              .selectAll()
              .orderBy('display_name')
              .orderBy('id')
              .offset(startIndex - 1)
              .limit(count)
              .execute();
      const members = await membersOf(
        db,
        groups.map((g) => g.id),
      );
      return {
        groups: groups.map((group) => ({
          group,
          members: members.filter((m) => m.group_id === group.id).map(({ id, email }) => ({ id, email })),
        })),
        total,
        startIndex,
      };
    },

    get: async (orgId: string, id: string) => withMembers(db, await load(db, orgId, id)),

    async create(orgId: string, body: unknown): Promise<GroupWithMembers> {
      const fields = groupFields(body);
      return db.transaction().execute(async (trx) => {
        await checkNameFree(trx, orgId, fields.displayName);
        const at = now();
        const group = await trx
          .insertInto('scim_groups')
          .values({
            id: randomUUID(),
            org_id: orgId,
            display_name: fields.displayName,
            external_id: fields.externalId ?? null,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const touched = await setMembers(trx, group, await memberIds(trx, orgId, fields.members), []);
        await touch(trx, group, 'scim.group.create', { members: touched.length });
        await roles.recompute(trx, orgId, touched);
        return withMembers(trx, group);
      });
    },

    async replace(orgId: string, id: string, body: unknown): Promise<GroupWithMembers> {
      const fields = groupFields(body);
      return db.transaction().execute(async (trx) => {
        const group = await load(trx, orgId, id);
        await checkNameFree(trx, orgId, fields.displayName, id);
        const before = (await membersOf(trx, [id])).map((m) => m.id);
        const after = await memberIds(trx, orgId, fields.members);
        const updated = await trx
          .updateTable('scim_groups')
          .set({
            display_name: fields.displayName,
            external_id: fields.externalId ?? null,
            updated_at: now(),
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await setMembers(
          trx,
          group,
          after.filter((u) => !before.includes(u)),
          before.filter((u) => !after.includes(u)),
        );
        await touch(trx, updated, 'scim.group.update', { members: after.length });
        // The name may be what a mapping matches: everyone in it, before and after, is recomputed.
        await roles.recompute(trx, orgId, [...new Set([...before, ...after])]);
        return withMembers(trx, updated);
      });
    },

    async patch(orgId: string, id: string, body: unknown): Promise<GroupWithMembers> {
      return db.transaction().execute(async (trx) => {
        let group = await load(trx, orgId, id);
        const before = (await membersOf(trx, [id])).map((m) => m.id);
        for (const change of patchChanges(body)) {
          if (change.path === 'members') {
            const current = (await membersOf(trx, [id])).map((m) => m.id);
            if (change.op === 'add') {
              const add = await memberIds(trx, orgId, change.value);
              await setMembers(trx, group, add, []);
            } else if (change.op === 'replace') {
              const next = await memberIds(trx, orgId, change.value);
              await setMembers(
                trx,
                group,
                next.filter((u) => !current.includes(u)),
                current.filter((u) => !next.includes(u)),
              );
            } else {
              // Okta: members[value eq "x"]; Entra: path members with a value list; neither: all.
              const named =
                change.filterValue !== undefined
                  ? [change.filterValue]
                  : change.value === undefined || change.value === null
                    ? current
                    : await memberIds(trx, orgId, change.value);
              await setMembers(trx, group, [], named);
            }
          } else if (change.path === 'displayName' && change.op !== 'remove') {
            if (typeof change.value !== 'string' || change.value.trim() === '')
              throw scimInvalid('displayName must be a non-empty string');
            await checkNameFree(trx, orgId, change.value, id);
            group = await trx
              .updateTable('scim_groups')
              .set({ display_name: change.value, updated_at: now() })
              .where('id', '=', id)
              .returningAll()
              .executeTakeFirstOrThrow();
          } else if (change.path === 'externalId') {
            const externalId = change.op === 'remove' ? null : change.value;
            if (externalId !== null && typeof externalId !== 'string')
              throw scimInvalid('externalId must be a string');
            group = await trx
              .updateTable('scim_groups')
              .set({ external_id: externalId, updated_at: now() })
              .where('id', '=', id)
              .returningAll()
              .executeTakeFirstOrThrow();
          } else {
            throw new ScimError(400, `The path "${change.path}" cannot be changed on a Group`, 'invalidPath');
          }
        }
        const after = (await membersOf(trx, [id])).map((m) => m.id);
        await touch(trx, group, 'scim.group.update', { members: after.length });
        await roles.recompute(trx, orgId, [...new Set([...before, ...after])]);
        return withMembers(trx, group);
      });
    },

    async remove(orgId: string, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const group = await load(trx, orgId, id);
        const before = (await membersOf(trx, [id])).map((m) => m.id);
        await trx.deleteFrom('scim_groups').where('id', '=', id).execute();
        await touch(trx, group, 'scim.group.delete', { members: before.length });
        // Its members lose what its mapping gave them.
        await roles.recompute(trx, orgId, before);
      });
    },
  };
}

function groupFields(body: unknown): { displayName: string; externalId?: string; members?: unknown } {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw scimInvalid('The body must be a Group resource', 'invalidSyntax');
  const { displayName, externalId, members } = body as Record<string, unknown>;
  if (typeof displayName !== 'string' || displayName.trim() === '')
    throw scimInvalid('displayName is required');
  if (externalId !== undefined && externalId !== null && typeof externalId !== 'string')
    throw scimInvalid('externalId must be a string');
  return { displayName: displayName.trim(), ...(typeof externalId === 'string' && { externalId }), members };
}
