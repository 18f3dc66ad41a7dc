// Users of an organization (src/modules/users).
import type { ColumnType, Generated } from 'kysely';
import type { OrgRole } from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface UsersTable {
  id: string;
  org_id: string;
  email: string;
  name: string;
  org_role: OrgRole;
  password_hash: string | null;
  active: Generated<boolean>;
  scim_external_id: string | null;
  /** Created or linked through SCIM: its roles follow the group mappings. */
  scim_managed: Generated<boolean>;
  two_factor_enabled: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
  /** The TOTP seed, sealed with the secret box (purpose 'totp'); null without 2FA. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  /** A seed given by 2FA setup and not yet confirmed by a code, sealed like totp_secret. */
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last accepted TOTP time step: a code of this step or an earlier one is a replay. */
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
}
