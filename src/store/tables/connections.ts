import type { ConnectionDialect, Environment } from '../../core/vocabulary.ts';
import type { Timestamp } from './columns.ts';

export type SslMode = 'disable' | 'require' | 'verify-full';

export interface ConnectionsTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  dialect: ConnectionDialect;
  host: string;
  port: number;
  database: string;
  username: string;
  /** Sealed with the secret box (purpose 'connection-password'); the empty password sealed too. */
  password: string;
  ssl_mode: SslMode;
  /** PEM CA certificate(s) for ssl_mode verify-full; null means the system's trust store. */
  ca_cert: string | null;
  environment: Environment;
  protected: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}
