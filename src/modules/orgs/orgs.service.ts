// The caller's organization, and the creation of a new organization with its first owner (the
// `create-admin` command and the first start from ADMIN_EMAIL/ADMIN_PASSWORD, signup, OAuth).
//
// The plan a new organization starts on (docs/contract.md §11.3): the install's own organization, the one its
// operator makes, on Enterprise (drift, a core feature of a self-hosted install, works at once);
// organizations made by signup on Starter; with BILLING_MODE=saas every one on Starter.
import { randomUUID } from 'node:crypto';
import type { BillingMode } from '../../config.ts';
import type { Actor, AnonymousActor } from '../../core/actors.ts';
import { conflict, notFound } from '../../core/errors.ts';
import type { Plan } from '../../core/vocabulary.ts';
import type { PasswordHasher } from '../../security/passwords.ts';
import type { Db } from '../../store/db.ts';
import type { Organization, User } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { findLiveUserByEmail, insertUser } from '../users/users.repo.ts';
import { findOrg, insertOrg, renameOrg } from './orgs.repo.ts';

export type OrgsService = ReturnType<typeof createOrgsService>;

export interface NewOrgInput {
  orgName: string;
  email: string;
  password?: string;
  name?: string | undefined;
}

/** The plan of an organization made by the operator (`create-admin`, ADMIN_EMAIL). */
export function operatorOrgPlan(mode: BillingMode): Plan {
  return mode === 'saas' ? 'starter' : 'enterprise';
}

export function createOrgsService(deps: {
  db: Db;
  audit: AuditService;
  passwords: PasswordHasher;
  now: () => Date;
  /** BILLING_MODE: which plan the operator's organizations start on. */
  billingMode: BillingMode;
}) {
  const { db, audit, passwords, now, billingMode } = deps;
  const service = {
    async current(actor: Actor): Promise<Organization> {
      const org = await findOrg(db, actor.principal.orgId);
      if (!org) throw notFound('Organization');
      return org;
    },

    async rename(actor: Actor, name: string): Promise<Organization> {
      return db.transaction().execute(async (trx) => {
        const org = await renameOrg(trx, actor.principal.orgId, name.trim(), now());
        await audit.record(trx, actor, {
          action: 'org.update',
          target: { type: 'organization', id: org.id, label: org.name },
        });
        return org;
      });
    },

    /**
     * A new organization and its owner, in one transaction. `origin` says who asked, for the audit
     * entry: by default the local operator (`create-admin`, ADMIN_EMAIL), or a self-service signup
     * (with a password, or through an OAuth provider: no password, and `inTransaction` links the
     * identity in the same transaction).
     */
    async createWithOwner(
      input: NewOrgInput & { plan?: Plan },
      origin?: {
        actor: AnonymousActor;
        source: 'signup' | 'oauth';
        inTransaction?: (trx: Db, created: { org: Organization; owner: User }) => Promise<void>;
      },
    ) {
      const passwordHash = input.password === undefined ? null : await passwords.hash(input.password);
      return db.transaction().execute(async (trx): Promise<{ org: Organization; owner: User }> => {
        const email = input.email.trim().toLowerCase();
        if (await findLiveUserByEmail(trx, email)) throw conflict('A user with this email already exists');
        const at = now();
        const org = await insertOrg(trx, {
          id: randomUUID(),
          name: input.orgName.trim(),
          plan: input.plan ?? 'starter',
          created_at: at,
          updated_at: at,
        });
        const owner = await insertUser(trx, {
          id: randomUUID(),
          org_id: org.id,
          email,
          name: input.name?.trim() || email.split('@')[0] || email,
          org_role: 'owner',
          password_hash: passwordHash,
          created_at: at,
          updated_at: at,
        });
        await audit.record(trx, origin?.actor ?? { principal: null, ip: 'local', userAgent: 'dbops' }, {
          orgId: org.id,
          action: 'org.create',
          target: { type: 'organization', id: org.id, label: org.name },
          details: { owner: owner.id, plan: org.plan, ...(origin && { source: origin.source }) },
        });
        await origin?.inTransaction?.(trx, { org, owner });
        return { org, owner };
      });
    },

    /** The install's own organization and its owner (`create-admin`, ADMIN_EMAIL): see above. */
    createOperatorOrg(input: NewOrgInput) {
      return service.createWithOwner({ ...input, plan: operatorOrgPlan(billingMode) });
    },
  };
  return service;
}
