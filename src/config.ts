// The only reader of process.env. Every setting is parsed and checked here once, so a bad value
// stops the start with one line naming the variable instead of failing later in some module.
import { isIP } from 'node:net';
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  /** Where the embedded store (PGlite) and the generated secret key live. */
  dataDir: string;
  /** A PostgreSQL server for the store; undefined means the embedded PGlite store. */
  databaseUrl: string | undefined;
  /** Named prepared statements on a PostgreSQL store (src/store/prepared-statements.ts). */
  storePreparedStatements: boolean;
  redisUrl: string | undefined;
  /** 32-byte key for AES-256-GCM and HMACs; undefined means "generate into DATA_DIR". */
  secretKey: Buffer | undefined;
  corsOrigins: string[];
  trustedProxies: string[];
  cookieSecure: boolean;
  smtpUrl: string | undefined;
  logLevel: LogLevel;
  /** Public address of the web application, used in links sent by e-mail. */
  publicUrl: string;
  admin: { email: string; password: string; org: string } | undefined;
  /** ADMIN_PASSWORD: with ADMIN_EMAIL the first start's administrator, alone `create-admin`'s password. */
  adminPassword: string | undefined;
  argon2: { memoryKib: number; iterations: number };
  sessionTtlHours: number;
  /** Whether `serve` also works the job queue (the single-process default). */
  jobsInServer: boolean;
  /**
   * SCHEDULE_CRON_OVERRIDE: one cron expression (UTC) that replaces every module schedule's own,
   * so a test or a staging deployment sees daily and hourly passes fire every minute. Unset in
   * production: each schedule keeps its cron.
   */
  scheduleCronOverride: string | undefined;
  sessionCleanupCron: string;
  /** The daily drift check (src/jobs/drift-check.ts). */
  drift: DriftConfig;
  /** How long patches' backup tables are kept in the targets (src/jobs/backup-retention.ts). */
  backupRetention: BackupRetentionConfig;
  snapshotRetention: SnapshotRetentionConfig;
  /** The sender of the service's e-mails (drift alerts): `MAIL_FROM`. */
  mailFrom: string;
  /** `SIGNUP=closed` refuses self-service signup (and new users from OAuth). */
  signupOpen: boolean;
  /** OAuth providers; a provider without configuration is not offered (404). */
  oauth: { google?: GoogleOAuthConfig; github?: GithubOAuthConfig };
  /** How the service reaches target databases (connections). */
  targets: TargetsConfig;
  /** Outbound webhooks (src/modules/webhooks). */
  webhooks: WebhooksConfig;
  /** Payment-provider events (src/modules/billing). */
  billing: BillingConfig;
  /** METRICS_PORT: where /metrics is served (on HOST); undefined: no metrics listener at all. */
  metricsPort: number | undefined;
  /**
   * SHUTDOWN_GRACE_S: how long a stopping process lets its running jobs finish before it hands
   * them back at a checkpoint (src/main.ts).
   */
  shutdownGraceSeconds: number;
}

/**
 * What the tracing bootstrap (src/observability/tracing.ts) reads before anything else loads. The
 * OpenTelemetry SDK reads the other standard OTEL_* variables itself (headers, protocol, sampler,
 * resource attributes); these decide whether it starts at all.
 */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): no endpoint, no tracing. */
  endpoint: string | undefined;
  /** OTEL_SERVICE_NAME, `dbops` by default. */
  serviceName: string;
}

export function loadTracingConfig(env: Env = process.env): TracingConfig {
  const read = (name: string) => env[name]?.trim() || undefined;
  const disabled = /^true$/i.test(read('OTEL_SDK_DISABLED') ?? '');
  const endpoint = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? read('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint))
    throw new ConfigError('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (OTLP over HTTP)');
  return {
    endpoint: disabled ? undefined : endpoint,
    serviceName: read('OTEL_SERVICE_NAME') ?? 'dbops',
  };
}

/**
 * BILLING_MODE: `self_hosted` (the default) starts the install's own organization (ADMIN_EMAIL,
 * `create-admin`) on Enterprise; `saas` starts every organization on Starter (docs/contract.md §11.3).
 */
export const BILLING_MODES = ['self_hosted', 'saas'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];

export interface BillingConfig {
  /** BILLING_MODE: which plan the organizations the operator makes start on. */
  mode: BillingMode;
  /** STRIPE_WEBHOOK_SECRET: verifies `Stripe-Signature`; without it the endpoint answers 404. */
  stripeWebhookSecret: string | undefined;
  /** BILLING_GRACE_DAYS: how long a failed payment keeps the plan before Starter. */
  graceDays: number;
}

export interface WebhooksConfig {
  /** WEBHOOK_ALLOW_PRIVATE: deliver to private and loopback addresses too (the metadata address never). */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each retry, counted from the attempt before it. */
  retrySchedule: number[];
  /** How long an attempt may take, connect to last byte. */
  timeoutMs: number;
}

/** Standard Webhooks' (Svix's) schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

export interface DriftConfig {
  /** When every connection of every Enterprise organization is checked: a cron expression in UTC. */
  checkCron: string;
  /** Connections checked at once by one pass. */
  checkConcurrency: number;
}

export interface BackupRetentionConfig {
  /** Days after its execution that a patch's before- and after-images are dropped. */
  days: number;
  /** When the job looks for backups past their retention: a cron expression in UTC. */
  cron: string;
}

export interface SnapshotRetentionConfig {
  /** Days a snapshot is kept unless it is a baseline, its connection's newest, or a drift report's. */
  days: number;
  /** When the job deletes the snapshots past their retention: a cron expression in UTC. */
  cron: string;
}

export interface TargetsConfig {
  /** Time allowed to open a connection to a target (TCP, TLS and authentication). */
  connectTimeoutMs: number;
  /** Server-side limit for each statement run on a target. */
  statementTimeoutMs: number;
  /** Refuse private (RFC 1918, ULA, CGNAT) and loopback addresses too, not only link-local and metadata. */
  blockPrivate: boolean;
  /** A connection's pool is closed after this long without use. */
  poolIdleMs: number;
  /** Connections each target pool may hold at once. */
  poolSize: number;
}

export interface GoogleOAuthConfig {
  clientId: string;
  clientSecret: string;
  /** OpenID Connect issuer; its discovery document gives every other URL. */
  issuerUrl: string;
}

export interface GithubOAuthConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Base of the REST API: `/user` and `/user/emails` are read from it. */
  apiUrl: string;
}

/** The defaults of the TARGET_* settings (and of apps built without them, as in tests and benches). */
export const TARGET_DEFAULTS: TargetsConfig = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 60_000,
  blockPrivate: false,
  poolIdleMs: 60_000,
  poolSize: 3,
};

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const fail = (name: string, expected: string, got: string): never => {
    throw new ConfigError(`${name} must be ${expected} (got ${JSON.stringify(got)})`);
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) fail(name, `an integer from ${min} to ${max}`, raw);
    return value;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    return fail(name, 'true or false', raw);
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(raw);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !protocols.includes(parsed.protocol)) {
      // Never echo a URL back: it may carry a password.
      throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')}`);
    }
    return raw;
  };
  const list = (name: string): string[] =>
    (read(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);

  const logLevel = (read('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) fail('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevel);

  const corsOrigins = list('CORS_ORIGINS');
  for (const origin of corsOrigins) {
    // An origin has no path and no credentials; a value with credentials is not repeated in the message.
    if (!/^https?:\/\/[^/\s@]+$/.test(origin)) {
      fail(
        'CORS_ORIGINS',
        'a comma-separated list of origins',
        origin.includes('@') ? '(a URL with credentials)' : origin,
      );
    }
  }
  const trustedProxies = list('TRUSTED_PROXIES');
  for (const proxy of trustedProxies) {
    const [address = '', bits, extra] = proxy.split('/');
    const version = isIP(address);
    const maxBits = version === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (version === 0 || !bitsOk || extra !== undefined) {
      fail('TRUSTED_PROXIES', 'a comma-separated list of IP addresses or CIDR ranges', proxy);
    }
  }

  const adminEmail = read('ADMIN_EMAIL');
  const adminPassword = read('ADMIN_PASSWORD');
  // ADMIN_PASSWORD alone is how `create-admin` takes its password (never on the command line).
  if (adminEmail !== undefined && adminPassword === undefined) {
    throw new ConfigError('ADMIN_EMAIL needs ADMIN_PASSWORD');
  }

  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const secretKey = parseSecretKey(read('SECRET_KEY'));
  if (databaseUrl && !secretKey) {
    throw new ConfigError(
      'SECRET_KEY is required with DATABASE_URL (every process sharing the store must use the same key)',
    );
  }

  const signup = read('SIGNUP') ?? 'open';
  if (signup !== 'open' && signup !== 'closed') fail('SIGNUP', 'open or closed', signup);

  const http = ['http:', 'https:'];
  const pair = (idName: string, secretName: string) => {
    const id = read(idName);
    const secret = read(secretName);
    if ((id === undefined) !== (secret === undefined)) {
      throw new ConfigError(`${idName} and ${secretName} must be set together`);
    }
    return id && secret ? { clientId: id, clientSecret: secret } : undefined;
  };
  const google = pair('GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET');
  const github = pair('GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET');

  const publicUrl = (url('PUBLIC_URL', ['http:', 'https:']) ?? 'http://localhost:8000').replace(/\/$/, '');

  return {
    port: integer('PORT', 8000, 0, 65535),
    host: read('HOST') ?? '127.0.0.1',
    dataDir: path.resolve(read('DATA_DIR') ?? 'var/data'),
    databaseUrl,
    storePreparedStatements: boolean('STORE_PREPARED_STATEMENTS', true),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    secretKey,
    corsOrigins,
    trustedProxies,
    cookieSecure: boolean('COOKIE_SECURE', true),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    logLevel,
    publicUrl,
    adminPassword,
    admin:
      adminEmail && adminPassword
        ? { email: adminEmail, password: adminPassword, org: read('ADMIN_ORG') ?? 'Default' }
        : undefined,
    argon2: {
      memoryKib: integer('ARGON2_MEMORY_KIB', 19_456, 8, 4_194_304),
      iterations: integer('ARGON2_ITERATIONS', 2, 1, 100),
    },
    sessionTtlHours: integer('SESSION_TTL_HOURS', 24, 1, 24 * 90),
    jobsInServer: boolean('JOBS_IN_SERVER', true),
    scheduleCronOverride: cronExpression(read('SCHEDULE_CRON_OVERRIDE'), 'SCHEDULE_CRON_OVERRIDE'),
    sessionCleanupCron: read('SESSION_CLEANUP_CRON') ?? '*/15 * * * *',
    drift: {
      checkCron: read('DRIFT_CHECK_CRON') ?? '0 3 * * *',
      checkConcurrency: integer('DRIFT_CHECK_CONCURRENCY', 4, 1, 64),
    },
    backupRetention: {
      days: integer('BACKUP_RETENTION_DAYS', 30, 1, 3650),
      // Daily, in the quiet hours and apart from the drift check's 03:00.
      cron: read('BACKUP_RETENTION_CRON') ?? '30 4 * * *',
    },
    snapshotRetention: {
      days: integer('SNAPSHOT_RETENTION_DAYS', 90, 1, 3650),
      cron: read('SNAPSHOT_RETENTION_CRON') ?? '45 4 * * *',
    },
    mailFrom: read('MAIL_FROM') ?? `dbops <dbops@${new URL(publicUrl).hostname}>`,
    signupOpen: signup === 'open',
    oauth: {
      ...(google && {
        google: { ...google, issuerUrl: url('GOOGLE_ISSUER_URL', http) ?? 'https://accounts.google.com' },
      }),
      ...(github && {
        github: {
          ...github,
          authorizeUrl: url('GITHUB_AUTHORIZE_URL', http) ?? 'https://github.com/login/oauth/authorize',
          tokenUrl: url('GITHUB_TOKEN_URL', http) ?? 'https://github.com/login/oauth/access_token',
          apiUrl: (url('GITHUB_API_URL', http) ?? 'https://api.github.com').replace(/\/$/, ''),
        },
      }),
    },
    targets: {
      connectTimeoutMs: integer('TARGET_CONNECT_TIMEOUT_MS', TARGET_DEFAULTS.connectTimeoutMs, 100, 600_000),
      statementTimeoutMs: integer(
        'TARGET_STATEMENT_TIMEOUT_MS',
        TARGET_DEFAULTS.statementTimeoutMs,
        100,
        86_400_000,
      ),
      blockPrivate: boolean('BLOCK_PRIVATE_TARGETS', TARGET_DEFAULTS.blockPrivate),
      poolIdleMs: integer('TARGET_POOL_IDLE_MS', TARGET_DEFAULTS.poolIdleMs, 1_000, 86_400_000),
      poolSize: integer('TARGET_POOL_SIZE', TARGET_DEFAULTS.poolSize, 1, 20),
    },
    webhooks: {
      allowPrivate: boolean('WEBHOOK_ALLOW_PRIVATE', false),
      retrySchedule: retrySchedule(read('WEBHOOK_RETRY_SCHEDULE')),
      timeoutMs: 10_000,
    },
    billing: {
      mode: billingMode(read('BILLING_MODE')),
      stripeWebhookSecret: read('STRIPE_WEBHOOK_SECRET'),
      graceDays: integer('BILLING_GRACE_DAYS', 7, 0, 365),
    },
    metricsPort: read('METRICS_PORT') === undefined ? undefined : integer('METRICS_PORT', 0, 0, 65535),
    shutdownGraceSeconds: integer('SHUTDOWN_GRACE_S', 25, 0, 3600),
  };
}

/** BILLING_MODE: `self_hosted` (the default) or `saas`. */
function billingMode(raw: string | undefined): BillingMode {
  if (raw === undefined) return 'self_hosted';
  const mode = BILLING_MODES.find((m) => m === raw);
  if (!mode)
    throw new ConfigError(`BILLING_MODE must be ${BILLING_MODES.join(' or ')} (got ${JSON.stringify(raw)})`);
  return mode;
}

/** WEBHOOK_RETRY_SCHEDULE: 0 to 20 delays in whole seconds (each at most a day), comma-separated. */
function retrySchedule(raw: string | undefined): number[] {
  if (raw === undefined) return [...WEBHOOK_RETRY_SCHEDULE];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 20 || parts.some((part) => !/^\d+$/.test(part) || Number(part) > 86_400)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be up to 20 comma-separated delays in seconds, each at most 86400 (got ${JSON.stringify(raw)})`,
    );
  }
  return parts.map(Number);
}

/**
 * A cron expression of 5 fields (or 6, seconds first), checked for its shape only: pg-boss parses it
 * when the schedule is registered and refuses what its parser cannot read, but a value with a
 * field too many or a stray word would otherwise only fail once a worker starts.
 */
function cronExpression(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  const fields = raw.split(/\s+/);
  if (fields.length < 5 || fields.length > 6 || fields.some((field) => !/^[0-9A-Za-z*/,?#-]+$/.test(field))) {
    throw new ConfigError(
      `${name} must be a cron expression of 5 or 6 fields, e.g. "* * * * *" (got ${JSON.stringify(raw)})`,
    );
  }
  return fields.join(' ');
}

/** SECRET_KEY is 32 bytes, written as 64 hex characters or as base64. */
export function parseSecretKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined) return undefined;
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('SECRET_KEY must be 32 bytes written as 64 hex characters or base64');
  }
  return key;
}
