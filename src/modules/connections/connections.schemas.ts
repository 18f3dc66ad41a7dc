import { Type } from 'typebox';
import { DIALECTS } from '../../core/vocabulary.ts';
import type { TargetErrorCause } from '../../dialects/errors.ts';
import { Name, Nullable, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { Connection } from '../../store/tables.ts';
import { ENVIRONMENTS } from '../projects/projects.schemas.ts';

export { DIALECTS };

export const SSL_MODES = ['disable', 'require', 'verify-full'] as const;
export const DRIFT_STATUSES = ['none', 'pending'] as const;
export const ERROR_CAUSES = [
  'authentication_failed',
  'unknown_database',
  'unreachable',
  'timeout',
  'tls',
  'permission_denied',
  'connection_lost',
  'other',
] as const satisfies readonly TargetErrorCause[];
// Every cause is listed: a cause added to the dialects without updating the list fails to compile.
const everyCause: Exclude<TargetErrorCause, (typeof ERROR_CAUSES)[number]> extends never ? true : false =
  true;
void everyCause;

const SSL_MODE_HELP =
  '`disable`: plain TCP. `require`: encrypted, the certificate is not checked (libpq sslmode=require). ' +
  '`verify-full`: encrypted, the chain is checked against `ca_cert` (or the system trust store) and ' +
  'the certificate must name `host`.';

const Host = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9._:%-]+$',
  description:
    'Host name or IP address. Link-local and cloud metadata addresses are refused; private and loopback ' +
    'ones too when the server runs with BLOCK_PRIVATE_TARGETS=true (checked on every resolved address).',
});
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const DatabaseName = Type.String({ minLength: 1, maxLength: 128 });
const Username = Type.String({ minLength: 1, maxLength: 128 });
const Password = Type.String({
  maxLength: 1024,
  description: 'Stored encrypted (AES-256-GCM) and never returned; may be empty (trust authentication)',
});
const SslMode = StringEnum(SSL_MODES, { description: SSL_MODE_HELP });
const CaCert = Nullable(
  Type.String({
    maxLength: 65_536,
    description: 'PEM CA certificate(s) trusted for `verify-full`; null: the system trust store',
  }),
);
const Environment = StringEnum(ENVIRONMENTS);
const Protected = Type.Boolean({
  description:
    'Operations on a protected connection follow the approval policy strictly. Default: true for ' +
    'production, false otherwise. Changing the environment to production protects the connection ' +
    'unless `protected` is given; leaving production never unprotects it by itself.',
});

export const ConnectionSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    name: Type.String(),
    dialect: StringEnum(DIALECTS),
    host: Type.String(),
    port: Type.Integer(),
    database: Type.String(),
    username: Type.String(),
    has_password: Type.Boolean({ description: 'Whether a non-empty password is stored (never returned)' }),
    ssl_mode: SslMode,
    ca_cert: Nullable(Type.String()),
    environment: Environment,
    protected: Type.Boolean(),
    drift_status: StringEnum(DRIFT_STATUSES, {
      description:
        '`pending` while the connection has a drift report not yet acknowledged (Enterprise drift ' +
        'detection), `none` otherwise: the sidebar badge',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Connection' },
);

export const CreateConnectionBody = Type.Object(
  {
    project_id: Uuid,
    name: Name,
    dialect: StringEnum(DIALECTS, { description: '`mysql` covers MySQL 8 and MariaDB 10.6+' }),
    host: Host,
    port: Port,
    database: DatabaseName,
    username: Username,
    password: Password,
    ssl_mode: SslMode,
    environment: Environment,
    protected: Type.Optional(Protected),
    ca_cert: Type.Optional(CaCert),
  },
  { title: 'CreateConnectionRequest', additionalProperties: false },
);

export const UpdateConnectionBody = Type.Object(
  {
    name: Type.Optional(Name),
    host: Type.Optional(Host),
    port: Type.Optional(Port),
    database: Type.Optional(DatabaseName),
    username: Type.Optional(Username),
    password: Type.Optional(Password),
    ssl_mode: Type.Optional(SslMode),
    ca_cert: Type.Optional(CaCert),
    environment: Type.Optional(Environment),
    protected: Type.Optional(Protected),
  },
  {
    title: 'UpdateConnectionRequest',
    additionalProperties: false,
    description:
      'Only the fields given change; an empty object changes nothing. The project and the dialect ' +
      'of a connection are fixed. Any change closes the pool on the old settings.',
  },
);

export const ListConnectionsQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    project_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: "Only this project's connections; without it, those of every project the caller sees",
      }),
    ),
  }),
]);

export const TestResultSchema = Type.Object(
  {
    ok: Type.Boolean(),
    latency_ms: Type.Integer({ minimum: 0, description: 'Connect, authenticate and ask the version' }),
    server_version: Nullable(Type.String()),
    error: Nullable(
      Type.Object({
        cause: StringEnum(ERROR_CAUSES),
        message: Type.String({ description: 'What failed; never contains the password' }),
      }),
    ),
  },
  { title: 'ConnectionTestResult' },
);

/**
 * A connection as services hand it out: the sealed password replaced by whether there is one, and
 * whether it has drift waiting to be acknowledged.
 */
export type ConnectionView = Omit<Connection, 'password'> & {
  has_password: boolean;
  drift_status: (typeof DRIFT_STATUSES)[number];
};

export function toConnectionResponse(connection: ConnectionView) {
  return {
    id: connection.id,
    project_id: connection.project_id,
    name: connection.name,
    dialect: connection.dialect,
    host: connection.host,
    port: connection.port,
    database: connection.database,
    username: connection.username,
    has_password: connection.has_password,
    ssl_mode: connection.ssl_mode,
    ca_cert: connection.ca_cert,
    environment: connection.environment,
    protected: connection.protected,
    drift_status: connection.drift_status,
    created_at: toTimestamp(connection.created_at),
    updated_at: toTimestamp(connection.updated_at),
  };
}
