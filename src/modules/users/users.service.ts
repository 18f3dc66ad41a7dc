// People of an organization: invite (create), change role or status, soft delete, purge. An
// organization always keeps an active owner, only owners hand out or take away the owner role, and
// nobody locks themselves out by accident.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict, forbidden, notFound } from '../../core/errors.ts';
import type { PasswordHasher } from '../../security/passwords.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { OrgRole, User } from '../../store/tables.ts';
import { revokeUserKeys } from '../api-keys/api-keys.repo.ts';
import { redactAuditLabels } from '../audit/audit.repo.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { revokeUserSessions } from '../auth/auth.repo.ts';
import { deleteUserIdentities } from '../auth/oauth.repo.ts';
import { replaceRecoveryCodes } from '../auth/two-factor.repo.ts';
import {
  countOtherActiveOwners,
  findLiveUserByEmail,
  findUser,
  insertUser,
  lockOrgOwnership,
  removeMemberships,
  updateUser,
  usersQuery,
} from './users.repo.ts';

export interface NewUserInput {
  email: string;
  name: string;
  org_role: OrgRole;
  password: string;
}

export type UsersService = ReturnType<typeof createUsersService>;

const PURGED_LABEL = '[purged user]';

export function createUsersService(deps: {
  db: Db;
  audit: AuditService;
  passwords: PasswordHasher;
  now: () => Date;
}) {
  const { db, audit, passwords, now } = deps;

  async function load(executor: Db, actor: Actor, id: string): Promise<User> {
    const user = await findUser(executor, actor.principal.orgId, id);
    if (!user) throw notFound('User');
    return user;
  }

  /** Owners are managed by owners only. */
  function checkOwnerRights(actor: Actor, ...roles: (OrgRole | undefined)[]): void {
    if (roles.includes('owner') && actor.principal.orgRole !== 'owner') {
      throw forbidden('Only an organization owner can grant, change or remove the owner role');
    }
  }

  async function keepAnOwner(executor: Db, user: User): Promise<void> {
    if (user.org_role !== 'owner') return;
    await lockOrgOwnership(executor, user.org_id);
    if ((await countOtherActiveOwners(executor, user.org_id, user.id)) === 0) {
      throw conflict('The organization must keep at least one active owner');
    }
  }

  return {
    list: (actor: Actor, page: PageRequest) => paginate(usersQuery(db, actor.principal.orgId), page),

    get: (actor: Actor, id: string) => load(db, actor, id),

    /** Also used by the bootstrap (`create-admin`), hence the explicit organization. */
    async create(actor: Actor, input: NewUserInput): Promise<User> {
      checkOwnerRights(actor, input.org_role);
      const passwordHash = await passwords.hash(input.password);
      return db.transaction().execute(async (trx) => {
        if (await findLiveUserByEmail(trx, input.email))
          throw conflict('A user with this email already exists');
        const at = now();
        const user = await insertUser(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          email: input.email.toLowerCase(),
          name: input.name.trim(),
          org_role: input.org_role,
          password_hash: passwordHash,
          created_at: at,
          updated_at: at,
        });
        await audit.record(trx, actor, {
          action: 'user.create',
          target: { type: 'user', id: user.id, label: user.email },
          details: { org_role: user.org_role },
        });
        return user;
      });
    },

    async update(actor: Actor, id: string, changes: { name?: string; org_role?: OrgRole; active?: boolean }) {
      return db.transaction().execute(async (trx) => {
        const user = await load(trx, actor, id);
        if (user.deleted_at) throw conflict('User is deleted');
        const roleChanges = changes.org_role !== undefined && changes.org_role !== user.org_role;
        const deactivates = changes.active === false && user.active;
        if ((roleChanges || deactivates) && user.id === actor.principal.userId) {
          throw conflict('You cannot change your own role or deactivate yourself');
        }
        if (roleChanges) checkOwnerRights(actor, user.org_role, changes.org_role);
        if (deactivates) checkOwnerRights(actor, user.org_role);
        if ((roleChanges && user.org_role === 'owner') || deactivates) await keepAnOwner(trx, user);
        const updated = await updateUser(trx, id, {
          ...(changes.name !== undefined && { name: changes.name.trim() }),
          ...(changes.org_role !== undefined && { org_role: changes.org_role }),
          ...(changes.active !== undefined && { active: changes.active }),
          updated_at: now(),
        });
        if (deactivates) await revokeUserSessions(trx, id, now());
        // The new name is personal data, which a purge must be able to erase: the entry says only that it changed.
        const { name, ...rest } = changes;
        await audit.record(trx, actor, {
          action: 'user.update',
          target: { type: 'user', id, label: user.email },
          details: { changes: rest, name_changed: name !== undefined },
        });
        return updated;
      });
    },

    /** Soft delete: the row stays for the audit trail; sessions and keys die now. */
    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const user = await load(trx, actor, id);
        if (user.deleted_at) throw notFound('User');
        if (user.id === actor.principal.userId) throw conflict('You cannot delete yourself');
        checkOwnerRights(actor, user.org_role);
        await keepAnOwner(trx, user);
        const at = now();
        await updateUser(trx, id, { deleted_at: at, active: false, updated_at: at });
        await revokeUserSessions(trx, id, at);
        await revokeUserKeys(trx, id, at);
        await audit.record(trx, actor, {
          action: 'user.delete',
          target: { type: 'user', id, label: user.email },
        });
      });
    },

    /** Removes the personal data of a soft-deleted user for good; audit entries keep the id only. */
    async purge(actor: Actor, id: string): Promise<User> {
      return db.transaction().execute(async (trx) => {
        const user = await load(trx, actor, id);
        if (!user.deleted_at) throw conflict('Only a deleted user can be purged; delete the user first');
        const purged = await updateUser(trx, id, {
          email: `purged-${id}@invalid`,
          name: PURGED_LABEL,
          password_hash: null,
          scim_external_id: null,
          two_factor_enabled: false,
          totp_secret: null,
          totp_pending_secret: null,
          totp_last_step: null,
          updated_at: now(),
        });
        await replaceRecoveryCodes(trx, id, [], now());
        await removeMemberships(trx, id);
        await deleteUserIdentities(trx, id);
        await revokeUserSessions(trx, id, now());
        await redactAuditLabels(trx, id, PURGED_LABEL);
        await audit.record(trx, actor, {
          action: 'user.purge',
          target: { type: 'user', id, label: PURGED_LABEL },
        });
        return purged;
      });
    },
  };
}
