// Signing in (src/modules/auth): sessions, 2FA recovery codes and challenges, OAuth identities.
import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  /** SHA-256 of the normalised code (high-entropy, so no salt needed). */
  code_hash: string;
  created_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface LoginChallengesTable {
  id: string;
  /** SHA-256 of the partial token handed to the client. */
  token_hash: string;
  user_id: string;
  /** The first factor that was verified: password, google or github. */
  method: string;
  failed_attempts: Generated<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface OAuthIdentitiesTable {
  id: string;
  user_id: string;
  /** `google` or `github`. */
  provider: string;
  /** The provider's stable id of the account: OIDC `sub`, GitHub's numeric user id. */
  provider_user_id: string;
  /** The provider-verified e-mail seen when the identity was linked. */
  email: string | null;
  created_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}
