// Failures of MySQL/MariaDB targets, each a classified TargetError whose message never holds the
// password: against the real test server (wrong password, unknown database, a user without rights,
// TLS) and against a closed port and a silent peer.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { reportSkipped } from '../../../test/support/databases.ts';
import {
  createTestMysqlDatabase,
  mysqlAvailable,
  onMysqlServer,
  testMysqlUrl,
} from '../../../test/support/mysql.ts';
import { freePort, silentServer, targetConfig } from '../../../test/support/targets.ts';
import { TargetError } from '../errors.ts';
import { mysqlDialect } from './mysql.dialect.ts';
import { classifyMysqlErrno, classifyMysqlError } from './mysql.errors.ts';

const PASSWORD = `Pw-${randomBytes(8).toString('hex')}`;

async function openError(config: Parameters<typeof mysqlDialect.open>[0]): Promise<TargetError> {
  const error = await mysqlDialect.open(config).then(
    async (handle) => {
      await handle.close();
      throw new Error('expected the connection to fail');
    },
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TargetError);
  expect((error as TargetError).message).not.toContain(PASSWORD);
  return error as TargetError;
}

describe('classifyMysqlErrno', () => {
  it.each([
    [1045, 'authentication_failed'],
    [1049, 'unknown_database'],
    [1044, 'permission_denied'],
    [1142, 'permission_denied'],
    [1969, 'timeout'],
    [3024, 'timeout'],
    [1927, 'connection_lost'],
    [3159, 'tls'],
    [1064, 'other'],
  ])('%i → %s', (errno, cause) => {
    expect(classifyMysqlErrno(errno)).toBe(cause);
  });
});

describe('classifyMysqlError', () => {
  it('uses errno for server errors and the code for driver and socket errors', () => {
    const server = Object.assign(new Error('Query execution was interrupted (max_statement_time exceeded)'), {
      errno: 1969,
      sqlState: '70100',
      code: 'ER_STATEMENT_TIMEOUT',
    });
    expect(classifyMysqlError(server, PASSWORD).cause).toBe('timeout');
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), {
      code: 'PROTOCOL_CONNECTION_LOST',
    });
    expect(classifyMysqlError(lost, PASSWORD).cause).toBe('connection_lost');
    const tls = Object.assign(new Error('Server does not support secure connection'), {
      code: 'HANDSHAKE_NO_SSL_SUPPORT',
    });
    expect(classifyMysqlError(tls, PASSWORD).cause).toBe('tls');
    const socket = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', errno: -111 });
    expect(classifyMysqlError(socket, PASSWORD).cause).toBe('unreachable');
  });

  it('redacts the password from whatever the driver said', () => {
    const echo = Object.assign(new Error(`bad ${PASSWORD}`), {
      errno: 1045,
      sqlState: '28000',
      code: 'ER_ACCESS_DENIED_ERROR',
    });
    expect(classifyMysqlError(echo, PASSWORD).message).not.toContain(PASSWORD);
  });
});

describe('MySQL connection failures without a server', () => {
  it('a closed port is unreachable', async () => {
    const error = await openError(
      targetConfig('mysql://u@127.0.0.1/db', { port: await freePort(), password: PASSWORD }),
    );
    expect(error.cause).toBe('unreachable');
  });

  it('a server that never answers is a timeout', async () => {
    const server = await silentServer();
    try {
      const error = await openError(
        targetConfig('mysql://u@127.0.0.1/db', {
          port: server.port,
          password: PASSWORD,
          connect_timeout_ms: 300,
        }),
      );
      expect(error.cause).toBe('timeout');
    } finally {
      await server.close();
    }
  });
});

const mysqlUp = await mysqlAvailable();
if (!mysqlUp)
  reportSkipped('MySQL connection errors (src/dialects/mysql/mysql.errors.test.ts)', 'MySQL', testMysqlUrl);

describe.skipIf(!mysqlUp)('MySQL connection failures on the test server', () => {
  const user = `dbops_pw_${randomBytes(5).toString('hex')}`;
  afterAll(async () => {
    await onMysqlServer((connection) => connection.query(`drop user if exists '${user}'@'%'`));
  });

  it('test() answers ok with the server version and a latency', async () => {
    const result = await mysqlDialect.test(targetConfig(testMysqlUrl));
    expect(result.ok).toBe(true);
    expect(result.error).toBeNull();
    expect(result.server_version).toMatch(/^\d+\.\d+/);
  });

  it('a wrong password is authentication_failed', async () => {
    const error = await openError(targetConfig(testMysqlUrl, { password: PASSWORD }));
    expect(error.cause).toBe('authentication_failed');
    expect(error.code).toBe('ER_ACCESS_DENIED_ERROR');
    const result = await mysqlDialect.test(targetConfig(testMysqlUrl, { password: PASSWORD }));
    expect(result).toMatchObject({
      ok: false,
      server_version: null,
      error: { cause: 'authentication_failed' },
    });
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
  });

  it('an unknown database is unknown_database', async () => {
    const error = await openError(
      targetConfig(testMysqlUrl, { database: `missing_${randomBytes(4).toString('hex')}` }),
    );
    expect(error.cause).toBe('unknown_database');
  });

  it('a user without rights on the database is permission_denied', async () => {
    const database = (await createTestMysqlDatabase())!;
    try {
      // Generated name and hex password: safe to write into the statement.
      await onMysqlServer((connection) =>
        connection.query(`create user '${user}'@'%' identified by '${PASSWORD}'`),
      );
      const error = await openError(targetConfig(database.url, { username: user, password: PASSWORD }));
      expect(error.cause).toBe('permission_denied');
      expect(error.code).toBe('ER_DBACCESS_DENIED_ERROR');
    } finally {
      await database.drop();
    }
  });

  it('verify-full without a trusted certificate is a TLS failure', async () => {
    const error = await openError(
      targetConfig(testMysqlUrl, { ssl_mode: 'verify-full', password: PASSWORD }),
    );
    expect(error.cause).toBe('tls');
  });
});
