import type { Scope } from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface ApiKeysTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  scopes: Scope[];
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}
