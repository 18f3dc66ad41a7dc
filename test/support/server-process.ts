// The real server process as a user starts it (`node src/main.ts serve`, what `npm start` runs), on
// the embedded store in a temporary DATA_DIR and a free port, for tests that talk to it over HTTP
// the way the README does. The whole process group is killed when the test ends.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const STARTUP_MS = 45_000;

/** Settings of the outer environment that would change what the server does. */
const SCRUBBED = [
  'DATABASE_URL',
  'SECRET_KEY',
  'REDIS_URL',
  'SMTP_URL',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
  'ADMIN_ORG',
  'HOST',
  'PORT',
  'DATA_DIR',
  'CORS_ORIGINS',
  'TRUSTED_PROXIES',
  'NODE_OPTIONS',
];

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  /** What the process printed so far (for failure messages). */
  output(): string;
  /** Resolves once /readyz answers 200; throws when the process dies or the time is up. */
  ready(): Promise<void>;
  /** SIGTERM, then SIGKILL to the group after 10 s; removes the temporary DATA_DIR. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment without the settings that would point a child elsewhere. */
export function scrubbedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  return env;
}

/** Starts the server; `env` adds settings (ADMIN_EMAIL, …). It is not waited for: call `ready()`. */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-server-'));
  const child: ChildProcess = spawn(process.execPath, ['src/main.ts', 'serve'], {
    cwd: REPO_ROOT,
    env: {
      ...scrubbedEnv(),
      DATA_DIR: path.join(home, 'data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      // Cheap password hashes: the cost is not what these tests look at.
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
      LOG_LEVEL: 'warn',
      COOKIE_SECURE: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const running = () => child.exitCode === null && child.signalCode === null;

  return {
    base,
    port,
    output: () => output,
    async ready() {
      const deadline = Date.now() + STARTUP_MS;
      for (;;) {
        if (!running()) throw new Error(`the server exited during start-up:\n${output}`);
        const answer = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(1_000) }).catch(
          () => undefined,
        );
        if (answer?.status === 200) return;
        if (Date.now() > deadline)
          throw new Error(`the server was not ready within ${STARTUP_MS} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (running()) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }, 10_000);
        await exited;
        clearTimeout(killer);
      }
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
