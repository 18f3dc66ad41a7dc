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
  'From weakest to strongest: `disable`: plain TCP. `require`: encrypted, the certificate is not ' +
  'checked (libpq sslmode=require). `verify-full`: encrypted, the chain is checked against `ca_cert` ' +
  '(or the system trust store) and the certificate must name `host`.';

const HOST_HELP =
  'Host name or IP address. Link-local and cloud metadata addresses are refused; private and loopback ' +
  'ones too when the server runs with BLOCK_PRIVATE_TARGETS=true (checked on every resolved address). ' +
  'An IPv6 address that carries an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) is judged by it.';
const HOST_RULES = { minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9._:%-]+$' };
const Host = Type.String({ ...HOST_RULES, description: HOST_HELP });
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
const PROTECTED_HELP =
  'Operations on a protected connection follow the approval policy strictly. Default: true for ' +
  'production, false otherwise. Changing the environment to production protects the connection ' +
  'unless `protected` is given; leaving production never unprotects it by itself.';
const Protected = Type.Boolean({ description: PROTECTED_HELP });

/**
 * The PATCH body's fields: where they differ from POST, it is what an edit of an existing connection
 * implies (the stored password, the protection already in force).
 */
const MOVES =
  ' Changing it (a value equal to the stored one is no change) requires `password` in the same body.';
const UpdatePassword = Type.String({
  maxLength: 1024,
  description:
    'The new password, stored encrypted (AES-256-GCM) and never returned; may be empty (trust ' +
    'authentication). Required in the same body when the edit changes `host` (compared without ' +
    'regard to ASCII letter case; a trailing dot or another spelling of an address counts as a ' +
    'change), `port`, `database` or `username`, lowers `ssl_mode` (`verify-full` > `require` > ' +
    '`disable`), or changes `ca_cert` while `verify-full` stays: a stored password is only ever sent ' +
    'to the server it was given for. Missing then: 422 with `loc: ["body", "password"]`, type `missing`.',
});
const UpdateProtected = Type.Boolean({
  description:
    `${PROTECTED_HELP} Turning protection off (true to false, with or without a change of ` +
    "`environment`) is an organization owner's or admin's action (an API key needs the `admin` " +
    'scope): a project admin who is not one gets 403. It writes the audit entry ' +
    '`connection.unprotect` besides `connection.update`.',
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
    host: Type.Optional(Type.String({ ...HOST_RULES, description: `${HOST_HELP}${MOVES}` })),
    port: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65535, description: `The server's port.${MOVES}` }),
    ),
    database: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: `The database.${MOVES}` }),
    ),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: `The user.${MOVES}` })),
    password: Type.Optional(UpdatePassword),
    ssl_mode: Type.Optional(
      StringEnum(SSL_MODES, {
        description: `${SSL_MODE_HELP} Lowering it requires \`password\` in the same body.`,
      }),
    ),
    ca_cert: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 65_536,
          description:
            'PEM CA certificate(s) trusted for `verify-full`; null: the system trust store. Changing ' +
            'it while `ssl_mode` is and stays `verify-full` requires `password` in the same body (the ' +
            'CAs decide which server passes for `host`).',
        }),
      ),
    ),
    environment: Type.Optional(Environment),
    protected: Type.Optional(UpdateProtected),
  },
  {
    title: 'UpdateConnectionRequest',
    additionalProperties: false,
    description:
      'Only the fields given change; an empty object changes nothing. The project and the dialect ' +
      'of a connection are fixed. Any change closes the pool on the old settings. An edit that ' +
      'would send the stored password to another server (another host, port, database or user, a ' +
      'lower `ssl_mode`, other CAs under `verify-full`) must carry `password`; turning `protected` ' +
      'off is for organization admins.',
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
