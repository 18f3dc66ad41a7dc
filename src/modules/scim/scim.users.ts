// Users through SCIM (RFC 7644 §3): list with filter and paging, get, create, replace (PUT), PATCH
// and a soft DELETE, for one organization (the token's). Deactivation revokes the user's sessions at
// once and makes their API keys fail while inactive; DELETE also revokes the keys for good. Every
// change is audited as the system actor `scim` in its transaction. A userName (the e-mail) is
// unique among live users of every organization; the answer never says which one holds it.
import { randomUUID } from 'node:crypto';
import { systemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import type { User } from '../../store/tables.ts';
import { revokeUserKeys } from '../api-keys/api-keys.repo.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { revokeUserSessions } from '../auth/auth.repo.ts';
import {
  countOtherActiveOwners,
  findLiveUserByEmail,
  insertUser,
  lockOrgOwnership,
  updateUser,
} from '../users/users.repo.ts';
import { ScimError, scimInvalid, scimNotFound } from './scim.errors.ts';
import { type FilterAttributes, filterToSql, parseFilter } from './scim.filter.ts';
import { emailOf, patchChanges, scimBoolean } from './scim.patch.ts';
import { joinName, splitName } from './scim.resources.ts';
import type { ScimRoles } from './scim.roles.ts';

export const SCIM_ACTOR = systemActor('scim');

/** Resources one list answers at most; a larger `count` is clamped (RFC 7644 §3.4.2.4). */
export const MAX_RESULTS = 200;

const USER_FILTERS: FilterAttributes = {
  username: { column: 'email', kind: 'ci' },
  userName: { column: 'email', kind: 'ci' },
  emails: { column: 'email', kind: 'ci' },
  'emails.value': { column: 'email', kind: 'ci' },
  externalId: { column: 'scim_external_id', kind: 'exact' },
  externalid: { column: 'scim_external_id', kind: 'exact' },
  active: { column: 'active', kind: 'bool' },
  displayName: { column: 'name', kind: 'ci' },
  displayname: { column: 'name', kind: 'ci' },
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What a create, a replace or a PATCH changes. */
interface UserChanges {
  email?: string;
  givenName?: string;
  familyName?: string;
  name?: string;
  active?: boolean;
  externalId?: string | null;
}

export type ScimUsers = ReturnType<typeof createScimUsers>;

export function createScimUsers(deps: { db: Db; audit: AuditService; roles: ScimRoles; now: () => Date }) {
  const { db, audit, roles, now } = deps;

  async function load(executor: Db, orgId: string, id: string): Promise<User> {
    const user = /^[0-9a-f-]{36}$/i.test(id)
      ? await executor
          .selectFrom('users')
          .selectAll()
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
      : undefined;
    if (!user) throw scimNotFound('User');
    return user;
  }

  async function checkEmailFree(executor: Db, email: string, exceptId?: string): Promise<void> {
    if (!EMAIL.test(email)) throw scimInvalid(`userName must be an e-mail address: "${email}"`);
    const holder = await findLiveUserByEmail(executor, email);
    if (holder && holder.id !== exceptId)
      throw new ScimError(409, 'The userName is already in use', 'uniqueness');
  }

  /** An organization always keeps an active owner: SCIM never removes the last one. */
  async function keepAnOwner(executor: Db, user: User): Promise<void> {
    if (user.org_role !== 'owner' || !user.active) return;
    await lockOrgOwnership(executor, user.org_id);
    if ((await countOtherActiveOwners(executor, user.org_id, user.id)) === 0)
      throw new ScimError(400, 'The organization must keep at least one active owner', 'mutability');
  }

  async function apply(trx: Db, user: User, changes: UserChanges): Promise<User> {
    const email = changes.email?.trim().toLowerCase();
    if (email !== undefined && email !== user.email) await checkEmailFree(trx, email, user.id);
    const current = splitName(user.name);
    const name =
      changes.name ??
      (changes.givenName !== undefined || changes.familyName !== undefined
        ? joinName(changes.givenName ?? current.givenName, changes.familyName ?? current.familyName)
        : undefined);
    const deactivates = changes.active === false && user.active;
    if (deactivates) await keepAnOwner(trx, user);
    const at = now();
    const updated = await updateUser(trx, user.id, {
      ...(email !== undefined && { email }),
      ...(name !== undefined && name !== '' && { name }),
      ...(changes.active !== undefined && { active: changes.active }),
      ...(changes.externalId !== undefined && { scim_external_id: changes.externalId }),
      scim_managed: true,
      updated_at: at,
    });
    if (deactivates) await revokeUserSessions(trx, user.id, at);
    await audit.record(trx, SCIM_ACTOR, {
      action: 'user.update',
      orgId: user.org_id,
      target: { type: 'user', id: user.id, label: updated.email },
      details: {
        changes: {
          ...(email !== undefined && email !== user.email && { email_changed: true }),
          ...(changes.active !== undefined && { active: changes.active }),
          ...(changes.externalId !== undefined && { external_id: changes.externalId }),
        },
        name_changed: name !== undefined && name !== user.name,
        source: 'scim',
      },
    });
    return updated;
  }

  return {
    async list(orgId: string, query: { filter?: string; startIndex?: number; count?: number }) {
      const startIndex = Math.max(1, Math.trunc(query.startIndex ?? 1));
      const count = Math.min(MAX_RESULTS, Math.max(0, Math.trunc(query.count ?? MAX_RESULTS)));
      let base = db.selectFrom('users').where('org_id', '=', orgId).where('deleted_at', 'is', null);
      if (query.filter) base = base.where(filterToSql(parseFilter(query.filter), USER_FILTERS));
      const total = Number(
        (await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n,
      );
      const users =
        count === 0
          ? []
          : await base
              .selectAll()
              .orderBy('created_at')
              .orderBy('id')
              .offset(startIndex - 1)
              .limit(count)
              .execute();
      return { users, total, startIndex };
    },

    get: (orgId: string, id: string) => load(db, orgId, id),

    async create(orgId: string, body: unknown): Promise<User> {
      const fields = userFields(body, 'create');
      const email = fields.email?.trim().toLowerCase();
      if (!email) throw scimInvalid('userName is required');
      return db.transaction().execute(async (trx) => {
        await checkEmailFree(trx, email);
        const at = now();
        const user = await insertUser(trx, {
          id: randomUUID(),
          org_id: orgId,
          email,
          name: fields.name ?? (joinName(fields.givenName, fields.familyName) || email),
          org_role: 'member',
          password_hash: null,
          active: fields.active ?? true,
          scim_external_id: fields.externalId ?? null,
          scim_managed: true,
          created_at: at,
          updated_at: at,
        });
        await audit.record(trx, SCIM_ACTOR, {
          action: 'user.create',
          orgId,
          target: { type: 'user', id: user.id, label: user.email },
          details: { org_role: user.org_role, source: 'scim' },
        });
        await roles.recompute(trx, orgId, [user.id]);
        return load(trx, orgId, user.id);
      });
    },

    async replace(orgId: string, id: string, body: unknown): Promise<User> {
      const fields = userFields(body, 'replace');
      return db.transaction().execute(async (trx) => apply(trx, await load(trx, orgId, id), fields));
    },

    async patch(orgId: string, id: string, body: unknown): Promise<User> {
      return db.transaction().execute(async (trx) => {
        const user = await load(trx, orgId, id);
        const changes: UserChanges = {};
        for (const change of patchChanges(body)) {
          const removing = change.op === 'remove';
          switch (change.path) {
            case 'active':
              if (removing) throw scimInvalid('active cannot be removed', 'mutability');
              changes.active = scimBoolean(change.value, 'active');
              break;
            case 'userName':
            case 'emails': {
              const email = change.path === 'emails' ? emailOf(change.value) : change.value;
              if (removing || typeof email !== 'string')
                throw scimInvalid('userName must be an e-mail address');
              changes.email = email;
              break;
            }
            case 'externalId':
              changes.externalId = removing ? null : textOf(change.value, 'externalId');
              break;
            case 'displayName':
              if (!removing) changes.name = textOf(change.value, 'displayName');
              break;
            case 'name.givenName':
              changes.givenName = removing ? '' : textOf(change.value, 'name.givenName');
              break;
            case 'name.familyName':
              changes.familyName = removing ? '' : textOf(change.value, 'name.familyName');
              break;
            case 'password':
              break; // accepted, never stored: sign-in goes through the identity provider
            default:
              throw new ScimError(
                400,
                `The path "${change.path}" cannot be changed on a User`,
                'invalidPath',
              );
          }
        }
        return apply(trx, user, changes);
      });
    },

    async remove(orgId: string, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const user = await load(trx, orgId, id);
        await keepAnOwner(trx, user);
        const at = now();
        await updateUser(trx, user.id, { deleted_at: at, active: false, updated_at: at });
        await revokeUserSessions(trx, user.id, at);
        await revokeUserKeys(trx, user.id, at);
        await trx.deleteFrom('scim_group_members').where('user_id', '=', user.id).execute();
        await audit.record(trx, SCIM_ACTOR, {
          action: 'user.delete',
          orgId,
          target: { type: 'user', id: user.id, label: user.email },
          details: { source: 'scim' },
        });
      });
    },
  };
}

function textOf(value: unknown, attribute: string): string {
  if (typeof value !== 'string') throw scimInvalid(`"${attribute}" must be a string`);
  return value;
}

/**
 * The attributes of a POST or PUT body. A PUT that omits `active` keeps it (Okta updates profiles
 * with PUT and leaves it out); `password` is accepted and ignored.
 */
function userFields(body: unknown, purpose: 'create' | 'replace'): UserChanges {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw scimInvalid('The body must be a User resource', 'invalidSyntax');
  const resource = body as Record<string, unknown>;
  const name = (resource.name ?? {}) as Record<string, unknown>;
  const userName = resource.userName ?? emailOf(resource.emails);
  if (typeof userName !== 'string') throw scimInvalid('userName is required');
  const optionalText = (value: unknown, attribute: string) =>
    value === undefined || value === null ? undefined : textOf(value, attribute);
  const externalId = optionalText(resource.externalId, 'externalId');
  return {
    email: userName,
    givenName: optionalText(name.givenName, 'name.givenName'),
    familyName: optionalText(name.familyName, 'name.familyName'),
    name:
      optionalText(name.formatted, 'name.formatted') ??
      (name.givenName === undefined && name.familyName === undefined
        ? optionalText(resource.displayName, 'displayName')
        : undefined),
    ...(resource.active !== undefined && { active: scimBoolean(resource.active, 'active') }),
    ...(externalId !== undefined ? { externalId } : purpose === 'replace' ? {} : {}),
  };
}
