// Real service processes as a user starts them (`node src/main.ts serve|worker|…`, what the npm
// scripts and the image run), for tests that talk to them over HTTP the way the README does, start
// several against one store, stop them with signals or kill them. Every child runs in its own
// process group; whatever a test leaves running is killed when the test file ends (`killAll`).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { seedDataDir } from './store-template.ts';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
// A first start on a fresh embedded store runs PGlite's initdb (about 5 s of CPU alone); three such
// starts side by side on a loaded 2-core machine have taken over 45 s. (`startServerProcess` starts
// from the store template instead; test/e2e/embedded-start.test.ts still makes a real first start.)
const STARTUP_MS = 90_000;

/** Settings of the outer environment that would change what the child does. */
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
  'JOBS_IN_SERVER',
  'NODE_OPTIONS',
];

/** What every test child gets: cheap password hashes (their cost is not what is tested), quiet logs. */
const TEST_DEFAULTS: Record<string, string> = {
  HOST: '127.0.0.1',
  ARGON2_MEMORY_KIB: '1024',
  ARGON2_ITERATIONS: '1',
  LOG_LEVEL: 'warn',
  COOKIE_SECURE: 'false',
};

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` (the port given as PORT, whether or not the command serves HTTP). */
  base: string;
  port: number;
  /** What the process printed so far (for failure messages). */
  output(): string;
  exited: Promise<Exit>;
  running(): boolean;
  /** Resolves once /readyz answers 200; throws when the process dies or the time is up. */
  ready(): Promise<void>;
  /** Waits (bounded) until the output contains `text`. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM and the exit it led to, with how long it took; throws when it takes over `timeoutMs`. */
  terminate(timeoutMs?: number): Promise<Exit & { ms: number }>;
  /** SIGKILL to the whole process group, at once. */
  kill(): Promise<void>;
}

/** A process started for `ServerProcess`, with the temporary DATA_DIR it removes on `stop()`. */
export interface ServerProcess extends ServiceProcess {
  /** SIGTERM, then SIGKILL to the group after 10 s; removes the temporary DATA_DIR. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();

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

/** A temporary directory removed by `killAll()`. */
export function tempDir(prefix = 'dbops-proc-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Kills every child still running and removes the temporary directories (call it in afterAll). */
export function killAll(): void {
  for (const child of live) killGroup(child);
  live.clear();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** Whether any process of the group `pgid` still runs. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface StartOptions {
  /** `node src/main.ts <args>` on the Node that runs the tests by default. */
  command?: string;
  args?: string[];
  cwd?: string;
  /** Added to the scrubbed environment and the test defaults; PORT is chosen unless given. */
  env?: Record<string, string>;
}

/** Starts a service process; it is not waited for: call `ready()` for one that serves HTTP. */
export async function startProcess(options: StartOptions = {}): Promise<ServiceProcess> {
  const port = options.env?.PORT ? Number(options.env.PORT) : await freePort();
  const child = spawn(options.command ?? process.execPath, options.args ?? ['src/main.ts', 'serve'], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...scrubbedEnv(), ...TEST_DEFAULTS, PORT: String(port), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const running = () => child.exitCode === null && child.signalCode === null;

  return {
    child,
    base,
    port,
    output: () => output,
    exited,
    running,
    async ready() {
      const deadline = Date.now() + STARTUP_MS;
      for (;;) {
        if (!running()) throw new Error(`the process exited during start-up:\n${output}`);
        const answer = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(1_000) }).catch(
          () => undefined,
        );
        if (answer?.status === 200) return;
        if (Date.now() > deadline)
          throw new Error(`the process was not ready within ${STARTUP_MS} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async waitForOutput(text, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (Date.now() > deadline)
          throw new Error(`"${text}" not printed within ${timeoutMs} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async terminate(timeoutMs = 15_000) {
      const started = Date.now();
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no exit within ${timeoutMs} ms of SIGTERM:\n${output}`)),
          timeoutMs,
        );
      });
      try {
        const exit = await Promise.race([exited, timeout]);
        return { ...exit, ms: Date.now() - started };
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      killGroup(child);
      await exited;
    },
  };
}

/**
 * `node src/main.ts serve` on the embedded store in a temporary DATA_DIR and a free port. The store
 * is the migrated template's (./store-template.ts), empty like a first start's but without its
 * initdb: what these servers are started for comes after that.
 */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const home = tempDir('dbops-server-');
  const dataDir = path.join(home, 'data');
  await seedDataDir(dataDir);
  const server = await startProcess({ env: { DATA_DIR: dataDir, ...env } });
  return {
    ...server,
    async stop() {
      if (server.running()) {
        server.child.kill('SIGTERM');
        const killer = setTimeout(() => killGroup(server.child), 10_000);
        await server.exited;
        clearTimeout(killer);
      }
      fs.rmSync(home, { recursive: true, force: true });
      tempDirs.delete(home);
    },
  };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end, killing its whole process group when it outlives `timeoutMs`. */
export function runToEnd(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Finished> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child);
      reject(
        new Error(`${args.join(' ')} did not finish within ${options.timeoutMs} ms\n${stdout}\n${stderr}`),
      );
    }, options.timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}
