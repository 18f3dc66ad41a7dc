// TOTP two-factor authentication: enrolment (setup → enable with a first code → ten one-time
// recovery codes), turning it off, and the second step of a login. Seeds are sealed with the secret
// box; recovery codes and partial tokens are stored as SHA-256 only. Every code check runs with the
// user's row locked, so two requests can never both spend the same TOTP step or recovery code.
import { randomInt, randomUUID } from 'node:crypto';
import type { Actor, AnonymousActor } from '../../core/actors.ts';
import { conflict, invalid, unauthenticated } from '../../core/errors.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { randomToken, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import type { User } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { isTotpCode, matchTotpStep, newTotpSecret, otpauthUrl } from './totp.ts';
import {
  countChallengeFailure,
  endUserChallenges,
  insertChallenge,
  lockChallenge,
  lockUser,
  replaceRecoveryCodes,
  setTwoFactor,
  useChallenge,
  useRecoveryCode,
} from './two-factor.repo.ts';

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
export type SecondFactor = 'totp' | 'recovery_code';

/** The secret box purpose of TOTP seeds: a sealed seed cannot be opened as anything else. */
const SEAL_PURPOSE = 'totp';
export const PARTIAL_TOKEN_TTL_MS = 5 * 60_000;
export const MAX_FAILED_CODES = 5;
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export const INVALID_CODE = 'Invalid two-factor code';
export const DEAD_PARTIAL_TOKEN = 'Partial token expired, used up or invalid; sign in again';

/** Spaces and dashes are presentation; recovery codes are case-insensitive. */
function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

/** 16 characters of base32 (80 bits), shown as xxxx-xxxx-xxxx-xxxx. */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 16; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return code.match(/.{4}/g)!.join('-');
}

const hashRecoveryCode = (code: string) => sha256(`recovery:${normalizeCode(code)}`);

const userTarget = (user: User) => ({ type: 'user', id: user.id, label: user.email });

export function createTwoFactorService(deps: {
  db: Db;
  audit: AuditService;
  box: SecretBox;
  now: () => Date;
}) {
  const { db, audit, box, now } = deps;

  /**
   * Spends a second factor of a locked user: a TOTP code of a step after the last accepted one, or an
   * unused recovery code. Returns which, or why not.
   */
  async function spendCode(
    trx: Db,
    user: User,
    code: string,
    at: Date,
  ): Promise<{ factor: SecondFactor } | { reason: 'wrong_code' | 'replayed_code' }> {
    const normalized = normalizeCode(code);
    if (isTotpCode(normalized)) {
      if (!user.totp_secret) return { reason: 'wrong_code' };
      const secret = box.open(user.totp_secret, SEAL_PURPOSE);
      const step = matchTotpStep(secret, normalized, at, user.totp_last_step);
      if (step === null) {
        // Told apart for the audit trail only: a replayed code is a sign someone saw it.
        const replayed = matchTotpStep(secret, normalized, at, null) !== null;
        return { reason: replayed ? 'replayed_code' : 'wrong_code' };
      }
      await setTwoFactor(trx, user.id, { totp_last_step: step });
      return { factor: 'totp' };
    }
    return (await useRecoveryCode(trx, user.id, hashRecoveryCode(normalized), at))
      ? { factor: 'recovery_code' }
      : { reason: 'wrong_code' };
  }

  async function lockSelf(trx: Db, actor: Actor): Promise<User> {
    const user = await lockUser(trx, actor.principal.userId);
    if (!user) throw unauthenticated();
    return user;
  }

  return {
    /** A new pending seed; it replaces any earlier pending one and takes effect only with `enable`. */
    async setup(actor: Actor): Promise<{ secret: string; otpauthUrl: string }> {
      return db.transaction().execute(async (trx) => {
        const user = await lockSelf(trx, actor);
        if (user.two_factor_enabled) throw conflict('Two-factor authentication is already enabled');
        const secret = newTotpSecret();
        await setTwoFactor(trx, user.id, {
          totp_pending_secret: box.seal(secret, SEAL_PURPOSE),
          updated_at: now(),
        });
        await audit.record(trx, actor, { action: 'auth.2fa.setup', target: userTarget(user) });
        return { secret, otpauthUrl: otpauthUrl(secret, user.email) };
      });
    },

    /**
     * Turns 2FA on with a code of the pending seed and returns the recovery codes (shown this once).
     * The step of that code counts as used, so it cannot sign in afterwards.
     */
    async enable(actor: Actor, code: string): Promise<string[]> {
      const at = now();
      const codes = await db.transaction().execute(async (trx) => {
        const user = await lockSelf(trx, actor);
        if (user.two_factor_enabled) throw conflict('Two-factor authentication is already enabled');
        if (!user.totp_pending_secret) {
          throw conflict('No two-factor setup in progress: call POST /auth/2fa/setup first');
        }
        const secret = box.open(user.totp_pending_secret, SEAL_PURPOSE);
        const step = matchTotpStep(secret, normalizeCode(code), at, null);
        if (step === null) {
          await audit.record(trx, actor, {
            action: 'auth.2fa.enable',
            outcome: 'failure',
            target: userTarget(user),
            details: { reason: 'wrong_code' },
          });
          return null;
        }
        const recovery = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
        await setTwoFactor(trx, user.id, {
          two_factor_enabled: true,
          totp_secret: user.totp_pending_secret,
          totp_pending_secret: null,
          totp_last_step: step,
          updated_at: at,
        });
        await replaceRecoveryCodes(
          trx,
          user.id,
          recovery.map((c) => ({ id: randomUUID(), code_hash: hashRecoveryCode(c) })),
          at,
        );
        await audit.record(trx, actor, {
          action: 'auth.2fa.enable',
          target: userTarget(user),
          details: { recovery_codes: recovery.length },
        });
        return recovery;
      });
      if (!codes) throw invalid(['body', 'code'], INVALID_CODE);
      return codes;
    },

    /** Turns 2FA off with a current TOTP code or an unused recovery code; seeds and codes are erased. */
    async disable(actor: Actor, code: string): Promise<void> {
      const at = now();
      const done = await db.transaction().execute(async (trx) => {
        const user = await lockSelf(trx, actor);
        if (!user.two_factor_enabled) throw conflict('Two-factor authentication is not enabled');
        const spent = await spendCode(trx, user, code, at);
        if ('reason' in spent) {
          await audit.record(trx, actor, {
            action: 'auth.2fa.disable',
            outcome: 'failure',
            target: userTarget(user),
            details: { reason: spent.reason },
          });
          return false;
        }
        await setTwoFactor(trx, user.id, {
          two_factor_enabled: false,
          totp_secret: null,
          totp_pending_secret: null,
          totp_last_step: null,
          updated_at: at,
        });
        await replaceRecoveryCodes(trx, user.id, [], at);
        await endUserChallenges(trx, user.id, at);
        await audit.record(trx, actor, {
          action: 'auth.2fa.disable',
          target: userTarget(user),
          details: { factor: spent.factor },
        });
        return true;
      });
      if (!done) throw invalid(['body', 'code'], INVALID_CODE);
    },

    /** After a verified first factor: a partial token for the second step (only its hash is kept). */
    async startChallenge(actor: AnonymousActor, user: User, method: string): Promise<string> {
      const token = randomToken();
      const at = now();
      await db.transaction().execute(async (trx) => {
        const id = randomUUID();
        await insertChallenge(trx, {
          id,
          token_hash: sha256(token),
          user_id: user.id,
          method,
          created_at: at,
          expires_at: new Date(at.getTime() + PARTIAL_TOKEN_TTL_MS),
        });
        await audit.record(trx, actor, {
          action: 'auth.login.2fa_challenge',
          orgId: user.org_id,
          target: userTarget(user),
          details: { challenge_id: id, method },
        });
      });
      return token;
    },

    /**
     * The second step: spends the partial token and a code. The token is dead once used, after five
     * minutes, after MAX_FAILED_CODES wrong codes, or when its user can no longer sign in. Failures
     * are counted and audited in the transaction, and answered 401 after it commits.
     */
    async verifyChallenge(
      actor: AnonymousActor,
      partialToken: string,
      code: string,
    ): Promise<{ user: User; method: string; factor: SecondFactor }> {
      const at = now();
      const outcome = await db.transaction().execute(async (trx) => {
        const challenge = await lockChallenge(trx, sha256(partialToken));
        const user = challenge ? await lockUser(trx, challenge.user_id) : undefined;
        const refuse = async (reason: string, detail: string, details: Record<string, unknown> = {}) => {
          await audit.record(trx, actor, {
            action: 'auth.login.2fa',
            outcome: 'failure',
            orgId: user?.org_id ?? null,
            ...(user && { target: userTarget(user) }),
            details: { reason, ...(challenge && { challenge_id: challenge.id }), ...details },
          });
          return { ok: false as const, detail };
        };
        if (!challenge || !user) return refuse('unknown_token', DEAD_PARTIAL_TOKEN);
        if (challenge.used_at) return refuse('token_used', DEAD_PARTIAL_TOKEN);
        if (challenge.expires_at <= at) return refuse('token_expired', DEAD_PARTIAL_TOKEN);
        if (challenge.failed_attempts >= MAX_FAILED_CODES)
          return refuse('too_many_attempts', DEAD_PARTIAL_TOKEN);
        if (!user.active || user.deleted_at || !user.two_factor_enabled) {
          await useChallenge(trx, challenge.id, at);
          return refuse('user_cannot_sign_in', DEAD_PARTIAL_TOKEN);
        }
        const spent = await spendCode(trx, user, code, at);
        if ('reason' in spent) {
          const failed = await countChallengeFailure(trx, challenge.id);
          return refuse(spent.reason, INVALID_CODE, { failed_attempts: failed });
        }
        await useChallenge(trx, challenge.id, at);
        return { ok: true as const, user, method: challenge.method, factor: spent.factor };
      });
      if (!outcome.ok) throw unauthenticated(outcome.detail);
      return { user: outcome.user, method: outcome.method, factor: outcome.factor };
    },
  };
}
