// A PostgreSQL server of a test's own, for tests that stop and restart a target database mid-run:
// the shared servers of the machine (TEST_PG_URL) serve other suites and CI, and are never
// restarted. initdb into a temporary directory, trust authentication, a free port on the loopback,
// its socket in that directory. PostgreSQL refuses to run as root: a test run as root starts it as
// the `postgres` system user. Undefined (the test skips) when the binaries or that user are missing.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.ts';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  /** `pg_ctl stop -m immediate`: every backend ends at once, as in a crash (recovery runs at start). */
  crash(): Promise<void>;
  /** Starts it again, waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops it (immediate) and removes its directory. */
  destroy(): Promise<void>;
}

/** The directory of initdb and pg_ctl: PG_BIN_DIR, or the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string | undefined {
  const candidates = process.env.PG_BIN_DIR
    ? [process.env.PG_BIN_DIR]
    : (fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql') : [])
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => `/usr/lib/postgresql/${version}/bin`);
  return candidates.find(
    (dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')),
  );
}

/** The uid and gid of the `postgres` system user, read from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
}

/** Why a private server cannot be started here, or undefined when it can. */
export function privatePostgresMissing(): string | undefined {
  if (!postgresBinDir()) return 'no initdb and pg_ctl (set PG_BIN_DIR)';
  if (process.getuid?.() === 0 && !postgresUser()) return 'run as root and no postgres system user';
  return undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(privatePostgresMissing());
  const asUser = process.getuid?.() === 0 ? postgresUser() : undefined;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-private-pg-'));
  const data = path.join(home, 'data');
  if (asUser) fs.chownSync(home, asUser.uid, asUser.gid);
  const port = await freePort();
  const tool = (name: string, args: string[]) =>
    run(path.join(bin, name), args, {
      ...asUser,
      cwd: home,
      timeout: 60_000,
      env: { ...process.env, LC_ALL: 'C' },
    });
  await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => {
    await tool('pg_ctl', ['-D', data, '-o', options, '-l', path.join(home, 'log'), '-w', 'start']);
  };
  const crash = async () => {
    await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    crash,
    start,
    async destroy() {
      await crash().catch(() => {});
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
