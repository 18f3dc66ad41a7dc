// Signing in and out with server-side sessions. A new session (and so a new id) is made at every
// login; the cookie holds a random token whose hash is the only thing stored. Wrong e-mail and wrong
// password get the same answer in about the same time.
import { randomUUID } from 'node:crypto';
import type { Actor, AnonymousActor } from '../../core/actors.ts';
import { forbidden, invalid, notFound, unauthenticated } from '../../core/errors.ts';
import type { PasswordHasher } from '../../security/passwords.ts';
import { randomToken, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { User } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { isSamlEnforced } from '../saml/saml.repo.ts';
import { findLiveUserByEmail, findUser, updateUser } from '../users/users.repo.ts';
import { insertSession, liveSessionsQuery, revokeSession, revokeUserSessions } from './auth.repo.ts';
import type { SecondFactor, TwoFactorService } from './two-factor.service.ts';

export type AuthService = ReturnType<typeof createAuthService>;

export interface NewSession {
  user: User;
  sessionId: string;
  token: string;
  expiresAt: Date;
}

export type LoginMethod = 'password' | 'google' | 'github' | 'saml';

export type LoginResult =
  | { kind: 'session'; session: NewSession }
  | { kind: 'needs_2fa'; partialToken: string };

const INVALID_LOGIN = 'Invalid email or password';

export function createAuthService(deps: {
  db: Db;
  audit: AuditService;
  passwords: PasswordHasher;
  now: () => Date;
  sessionTtlHours: number;
  twoFactor: TwoFactorService;
}) {
  const { db, audit, passwords, now, twoFactor } = deps;

  /** A new server-side session for a user whose login is complete. */
  async function openSession(
    actor: AnonymousActor,
    user: User,
    method: LoginMethod,
    secondFactor?: SecondFactor,
    inTransaction?: (trx: Db, sessionId: string) => Promise<void>,
  ): Promise<NewSession> {
    // Every timestamp of the session from the service's clock, so expiry and listing agree.
    const at = now();
    const session = {
      sessionId: randomUUID(),
      token: randomToken(),
      expiresAt: new Date(at.getTime() + deps.sessionTtlHours * 3_600_000),
    };
    await db.transaction().execute(async (trx) => {
      await insertSession(trx, {
        id: session.sessionId,
        token_hash: sha256(session.token),
        user_id: user.id,
        ip: actor.ip,
        user_agent: actor.userAgent,
        created_at: at,
        last_seen_at: at,
        expires_at: session.expiresAt,
      });
      await audit.record(trx, actor, {
        action: 'auth.login',
        orgId: user.org_id,
        target: { type: 'user', id: user.id, label: user.email },
        details: {
          session_id: session.sessionId,
          method,
          ...(secondFactor && { second_factor: secondFactor }),
        },
      });
      await inTransaction?.(trx, session.sessionId);
    });
    return { user, ...session };
  }

  /**
   * An organization with enforced SAML signs its users in through its identity provider only; its
   * owners keep password and OAuth as the way back in when the identity provider fails (docs/contract.md §12.1).
   * Checked after the first factor, so the refusal tells nothing to someone without the password.
   */
  async function refuseWhenSsoEnforced(
    actor: AnonymousActor,
    user: User,
    method: LoginMethod,
  ): Promise<void> {
    if (user.org_role === 'owner' || !(await isSamlEnforced(db, user.org_id))) return;
    await audit.record(db, actor, {
      action: 'auth.login',
      outcome: 'failure',
      orgId: user.org_id,
      target: { type: 'user', id: user.id, label: user.email },
      details: { method, reason: 'saml_enforced' },
    });
    throw forbidden(
      `Your organization signs in through its identity provider (SAML): use /api/v1/auth/saml/${user.org_id}/login`,
    );
  }

  /**
   * The one place where a verified first factor (password, OAuth) becomes a login: a session, or,
   * for a user with 2FA, the second step first.
   */
  async function completeLogin(actor: AnonymousActor, user: User, method: LoginMethod): Promise<LoginResult> {
    await refuseWhenSsoEnforced(actor, user, method);
    if (user.two_factor_enabled) {
      return { kind: 'needs_2fa', partialToken: await twoFactor.startChallenge(actor, user, method) };
    }
    return { kind: 'session', session: await openSession(actor, user, method) };
  }

  return {
    async login(actor: AnonymousActor, email: string, password: string): Promise<LoginResult> {
      const user = await findLiveUserByEmail(db, email);
      const ok = user?.password_hash ? await passwords.verify(user.password_hash, password) : false;
      if (!user?.password_hash) await passwords.verifyDummy(password);
      if (!user || !ok || !user.active) {
        await audit.record(db, actor, {
          action: 'auth.login',
          outcome: 'failure',
          orgId: user?.org_id ?? null,
          target: user ? { type: 'user', id: user.id, label: user.email } : undefined,
          details: { reason: !user ? 'unknown_email' : !ok ? 'wrong_password' : 'deactivated' },
        });
        throw unauthenticated(INVALID_LOGIN);
      }
      return completeLogin(actor, user, 'password');
    },

    completeLogin,

    /**
     * A login vouched for by the organization's identity provider (SAML), whose own second factor
     * applies: a session at once. `inTransaction` commits with the session (the assertion's single use
     * and its audit entry).
     */
    openSsoSession: (
      actor: AnonymousActor,
      user: User,
      inTransaction: (trx: Db, sessionId: string) => Promise<void>,
    ) => openSession(actor, user, 'saml', undefined, inTransaction),

    /** The second step of a 2FA login: a partial token and a code give a new session. */
    async loginSecondFactor(actor: AnonymousActor, partialToken: string, code: string): Promise<NewSession> {
      const { user, method, factor } = await twoFactor.verifyChallenge(actor, partialToken, code);
      // Enforcement may have been switched on between the two steps.
      await refuseWhenSsoEnforced(actor, user, method as LoginMethod);
      return openSession(actor, user, method as LoginMethod, factor);
    },

    async logout(actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await revokeSession(trx, actor.principal.userId, actor.principal.sessionId ?? '', now());
        await audit.record(trx, actor, {
          action: 'auth.logout',
          target: { type: 'session', id: actor.principal.sessionId ?? '' },
        });
      });
    },

    async me(actor: Actor): Promise<User> {
      const user = await findUser(db, actor.principal.orgId, actor.principal.userId);
      if (!user) throw unauthenticated();
      return user;
    },

    /** A password change needs the current password and revokes the user's other sessions. */
    async updateMe(
      actor: Actor,
      changes: { name?: string; current_password?: string; new_password?: string },
    ) {
      const user = await this.me(actor);
      if (changes.new_password !== undefined) {
        if (actor.principal.via !== 'session')
          throw forbidden('A password can only be changed from a signed-in session');
        if (changes.current_password === undefined) {
          throw invalid(['body', 'current_password'], 'Field required to change the password', 'missing');
        }
        if (!user.password_hash || !(await passwords.verify(user.password_hash, changes.current_password))) {
          throw invalid(['body', 'current_password'], 'Current password is incorrect');
        }
      }
      const passwordHash =
        changes.new_password === undefined ? undefined : await passwords.hash(changes.new_password);
      return db.transaction().execute(async (trx) => {
        const updated = await updateUser(trx, user.id, {
          ...(changes.name !== undefined && { name: changes.name.trim() }),
          ...(passwordHash !== undefined && { password_hash: passwordHash }),
          updated_at: now(),
        });
        if (passwordHash !== undefined) {
          await revokeUserSessions(trx, user.id, now(), actor.principal.sessionId ?? undefined);
        }
        await audit.record(trx, actor, {
          action: 'user.update_self',
          target: { type: 'user', id: user.id, label: user.email },
          details: { name_changed: changes.name !== undefined, password_changed: passwordHash !== undefined },
        });
        return updated;
      });
    },

    sessions: (actor: Actor, page: PageRequest) =>
      paginate(liveSessionsQuery(db, actor.principal.userId, now()), page),

    async revokeSession(actor: Actor, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await revokeSession(trx, actor.principal.userId, id, now()))) throw notFound('Session');
        await audit.record(trx, actor, { action: 'auth.session.revoke', target: { type: 'session', id } });
      });
    },
  };
}
