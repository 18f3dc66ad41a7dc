import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadTracingConfig, parseSecretKey } from './config.ts';

const HEX_KEY = 'ab'.repeat(32);

/** The ConfigError thrown by loadConfig(env); fails the test when there is none. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 8000,
      host: '127.0.0.1',
      dataDir: path.resolve('var/data'),
      databaseUrl: undefined,
      storePreparedStatements: true,
      redisUrl: undefined,
      secretKey: undefined,
      corsOrigins: [],
      trustedProxies: [],
      cookieSecure: true,
      smtpUrl: undefined,
      logLevel: 'info',
      publicUrl: 'http://localhost:8000',
      admin: undefined,
      argon2: { memoryKib: 19_456, iterations: 2 },
      sessionTtlHours: 24,
      jobsInServer: true,
      scheduleCronOverride: undefined,
      sessionCleanupCron: '*/15 * * * *',
      drift: { checkCron: '0 3 * * *', checkConcurrency: 4 },
      backupRetention: { days: 30, cron: '30 4 * * *' },
      snapshotRetention: { days: 90, cron: '45 4 * * *' },
      mailFrom: 'dbops <dbops@localhost>',
      signupOpen: true,
      oauth: {},
      targets: {
        connectTimeoutMs: 10_000,
        statementTimeoutMs: 60_000,
        blockPrivate: false,
        poolIdleMs: 60_000,
        poolSize: 3,
      },
      webhooks: {
        allowPrivate: false,
        retrySchedule: [5, 300, 1800, 7200, 18000, 36000, 36000],
        timeoutMs: 10_000,
      },
      billing: { mode: 'self_hosted', stripeWebhookSecret: undefined, graceDays: 7 },
      metricsPort: undefined,
      shutdownGraceSeconds: 25,
    });
  });

  it('reads METRICS_PORT and SHUTDOWN_GRACE_S, and refuses what is not a port or a number of seconds', () => {
    expect(loadConfig({ METRICS_PORT: '9464', SHUTDOWN_GRACE_S: '5' })).toMatchObject({
      metricsPort: 9464,
      shutdownGraceSeconds: 5,
    });
    expect(() => loadConfig({ METRICS_PORT: 'yes' })).toThrow(/METRICS_PORT must be an integer/);
    expect(() => loadConfig({ SHUTDOWN_GRACE_S: '-3' })).toThrow(/SHUTDOWN_GRACE_S must be an integer/);
  });

  it('turns tracing on with an OTLP endpoint only, named dbops unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(loadTracingConfig({})).toEqual({ endpoint: undefined, serviceName: 'dbops' });
    expect(
      loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'ops' }),
    ).toEqual({ endpoint: 'http://collector:4318', serviceName: 'ops' });
    expect(
      loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })
        .endpoint,
    ).toBeUndefined();
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(
      /OTLP over HTTP/,
    );
  });

  it('reads WEBHOOK_RETRY_SCHEDULE and WEBHOOK_ALLOW_PRIVATE', () => {
    const config = loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1, 2,30', WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(config.webhooks).toMatchObject({ retrySchedule: [1, 2, 30], allowPrivate: true });
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0' }).webhooks.retrySchedule).toEqual([0]);
  });

  it('reads SCHEDULE_CRON_OVERRIDE as one cron expression of 5 or 6 fields', () => {
    expect(loadConfig({ SCHEDULE_CRON_OVERRIDE: '* * * * *' }).scheduleCronOverride).toBe('* * * * *');
    expect(loadConfig({ SCHEDULE_CRON_OVERRIDE: ' 0   */2 * * MON-FRI ' }).scheduleCronOverride).toBe(
      '0 */2 * * MON-FRI',
    );
    expect(loadConfig({ SCHEDULE_CRON_OVERRIDE: '30 * * * * *' }).scheduleCronOverride).toBe('30 * * * * *');
    for (const bad of ['* * * *', '* * * * * * *', 'every minute', '* * * * *; rm']) {
      expect(configError({ SCHEDULE_CRON_OVERRIDE: bad }).message).toBe(
        `SCHEDULE_CRON_OVERRIDE must be a cron expression of 5 or 6 fields, e.g. "* * * * *" (got ${JSON.stringify(bad)})`,
      );
    }
  });

  it('reads SIGNUP as open or closed, and nothing else', () => {
    expect(loadConfig({ SIGNUP: 'closed' }).signupOpen).toBe(false);
    expect(loadConfig({ SIGNUP: 'open' }).signupOpen).toBe(true);
    expect(configError({ SIGNUP: 'maybe' }).message).toBe('SIGNUP must be open or closed (got "maybe")');
  });

  it('treats empty and blank values as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '   ', DATABASE_URL: '', COOKIE_SECURE: '' })).toMatchObject({
      port: 8000,
      logLevel: 'info',
      databaseUrl: undefined,
      cookieSecure: true,
    });
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '9123',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/dbops-data',
      DATABASE_URL: 'postgres://dbops:pw@db.internal:5432/dbops',
      REDIS_URL: 'redis://cache:6379',
      SECRET_KEY: HEX_KEY,
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      TRUSTED_PROXIES: '10.0.0.0/8,::1,192.168.1.7',
      COOKIE_SECURE: 'false',
      SMTP_URL: 'smtp://mail:25',
      LOG_LEVEL: 'debug',
      PUBLIC_URL: 'https://dbops.example.com/',
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'a long password',
      ADMIN_ORG: 'Acme',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
      SESSION_TTL_HOURS: '8',
      JOBS_IN_SERVER: 'no',
      TARGET_CONNECT_TIMEOUT_MS: '2500',
      TARGET_STATEMENT_TIMEOUT_MS: '120000',
      BLOCK_PRIVATE_TARGETS: 'true',
      TARGET_POOL_IDLE_MS: '5000',
      TARGET_POOL_SIZE: '4',
      DRIFT_CHECK_CRON: '30 2 * * 1-5',
      DRIFT_CHECK_CONCURRENCY: '8',
      BACKUP_RETENTION_DAYS: '90',
      BACKUP_RETENTION_CRON: '0 1 * * 0',
      MAIL_FROM: 'DB ops <ops@example.com>',
    });
    expect(config.targets).toEqual({
      connectTimeoutMs: 2500,
      statementTimeoutMs: 120_000,
      blockPrivate: true,
      poolIdleMs: 5000,
      poolSize: 4,
    });
    expect(config).toMatchObject({
      port: 9123,
      host: '0.0.0.0',
      dataDir: '/tmp/dbops-data',
      databaseUrl: 'postgres://dbops:pw@db.internal:5432/dbops',
      redisUrl: 'redis://cache:6379',
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      trustedProxies: ['10.0.0.0/8', '::1', '192.168.1.7'],
      cookieSecure: false,
      smtpUrl: 'smtp://mail:25',
      logLevel: 'debug',
      publicUrl: 'https://dbops.example.com',
      admin: { email: 'root@example.com', password: 'a long password', org: 'Acme' },
      argon2: { memoryKib: 1024, iterations: 1 },
      sessionTtlHours: 8,
      jobsInServer: false,
      drift: { checkCron: '30 2 * * 1-5', checkConcurrency: 8 },
      backupRetention: { days: 90, cron: '0 1 * * 0' },
      mailFrom: 'DB ops <ops@example.com>',
    });
    expect(loadConfig({ PUBLIC_URL: 'https://ops.example.org' }).mailFrom).toBe(
      'dbops <dbops@ops.example.org>',
    );
    expect(configError({ DRIFT_CHECK_CONCURRENCY: '0' }).message).toBe(
      'DRIFT_CHECK_CONCURRENCY must be an integer from 1 to 64 (got "0")',
    );
    expect(configError({ BACKUP_RETENTION_DAYS: '0' }).message).toBe(
      'BACKUP_RETENTION_DAYS must be an integer from 1 to 3650 (got "0")',
    );
    expect(configError({ BACKUP_RETENTION_DAYS: '7.5' }).message).toBe(
      'BACKUP_RETENTION_DAYS must be an integer from 1 to 3650 (got "7.5")',
    );
    expect(config.secretKey).toEqual(Buffer.from(HEX_KEY, 'hex'));
    expect(loadConfig({ ADMIN_EMAIL: 'a@example.com', ADMIN_PASSWORD: 'pw' }).admin?.org).toBe('Default');
  });

  it('takes SECRET_KEY as 64 hex characters or as base64 of 32 bytes', () => {
    const bytes = Buffer.alloc(32, 9);
    expect(parseSecretKey(bytes.toString('hex'))).toEqual(bytes);
    expect(parseSecretKey(bytes.toString('base64'))).toEqual(bytes);
    expect(loadConfig({ SECRET_KEY: bytes.toString('base64') }).secretKey).toEqual(bytes);
    expect(parseSecretKey(undefined)).toBeUndefined();
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '80.5' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['COOKIE_SECURE', { COOKIE_SECURE: 'maybe' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: 'not-an-ip' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.1,10.0.0.0/33' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'app.example.com' }],
    ['SECRET_KEY', { SECRET_KEY: 'too-short' }],
    ['SECRET_KEY', { SECRET_KEY: 'ab'.repeat(31) }],
    ['ARGON2_ITERATIONS', { ARGON2_ITERATIONS: '0' }],
    ['SESSION_TTL_HOURS', { SESSION_TTL_HOURS: '-1' }],
    ['JOBS_IN_SERVER', { JOBS_IN_SERVER: 'sometimes' }],
    ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '5,five' }],
    ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '5,,10' }],
    ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '90000' }],
    ['WEBHOOK_ALLOW_PRIVATE', { WEBHOOK_ALLOW_PRIVATE: 'perhaps' }],
  ])('refuses a bad %s: %j', (variable, env) => {
    const error = configError(env);
    expect(error.message).toContain(variable);
  });

  it('names ADMIN_PASSWORD when ADMIN_EMAIL comes without it', () => {
    const error = configError({ ADMIN_EMAIL: 'root@example.com' });
    expect(error.message).toContain('ADMIN_EMAIL');
    expect(error.message).toContain('ADMIN_PASSWORD');
  });

  it('takes ADMIN_PASSWORD alone as the password of `create-admin`, creating no administrator at start', () => {
    const config = loadConfig({ ADMIN_PASSWORD: 'hunter2hunter2' });
    expect(config.adminPassword).toBe('hunter2hunter2');
    expect(config.admin).toBeUndefined();
  });

  it('never repeats a password from a URL', () => {
    const cases: [string, Record<string, string>][] = [
      ['DATABASE_URL', { DATABASE_URL: 'mysql://root:s3cr3t-pw@db:3306/x', SECRET_KEY: HEX_KEY }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
      ['DATABASE_URL', { DATABASE_URL: 'postgres://u:s3cr3t-pw@host:notaport/db', SECRET_KEY: HEX_KEY }],
      ['REDIS_URL', { REDIS_URL: 'http://:s3cr3t-pw@cache:6379' }],
      ['SMTP_URL', { SMTP_URL: 'imap://user:s3cr3t-pw@mail' }],
      ['PUBLIC_URL', { PUBLIC_URL: 'ftp://user:s3cr3t-pw@host' }],
      ['CORS_ORIGINS', { CORS_ORIGINS: 'https://user:s3cr3t-pw@app.example.com/' }],
      // An origin never has credentials: a browser's Origin header would never match this one.
      ['CORS_ORIGINS', { CORS_ORIGINS: 'https://ok.example.com,https://user:s3cr3t-pw@app.example.com' }],
    ];
    for (const [variable, env] of cases) {
      const error = configError(env);
      expect(error.message).toContain(variable);
      expect(error.message).not.toContain('s3cr3t-pw');
    }
  });

  it('needs SECRET_KEY with DATABASE_URL, and says so without the URL', () => {
    const error = configError({ DATABASE_URL: 'postgres://dbops:s3cr3t-pw@db:5432/dbops' });
    expect(error.message).toContain('SECRET_KEY');
    expect(error.message).toContain('DATABASE_URL');
    expect(error.message).not.toContain('s3cr3t-pw');
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/dbops', SECRET_KEY: HEX_KEY }).databaseUrl).toBe(
      'postgresql://db/dbops',
    );
  });
});
