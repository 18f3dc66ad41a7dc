// The embedded default end to end (docs/architecture.md): the real process on PGlite in a temporary DATA_DIR,
// driven over real HTTP, with the CLI beside it. One process owns the store at a time; a second one
// must stop at once with one clear line, and nothing may be lost or corrupted across restarts.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Response } from '../support/app.ts';
import {
  freePort,
  groupAlive,
  killAll,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
  tempDir,
} from '../support/server-process.ts';
import { seedDataDir } from '../support/store-template.ts';

const PASSWORD = 'a long enough password';

afterAll(killAll);

const tempDataDir = () => path.join(tempDir('dbops-e2e-'), 'data');
/**
 * A DATA_DIR holding the migrated store template (../support/store-template.ts): an empty store
 * without the initdb of a first start, for the tests about what comes after it. The first start
 * from nothing (initdb and every migration, in the process) is the owner-from-ADMIN_EMAIL test's.
 */
const seededDataDir = async () => {
  const dataDir = tempDataDir();
  await seedDataDir(dataDir);
  return dataDir;
};

/** The child environment of these tests: the scrubbed one, this DATA_DIR and PORT, cheap hashes. */
function childEnv(dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...scrubbedEnv(),
    DATA_DIR: dataDir,
    PORT: String(port),
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
    LOG_LEVEL: 'warn',
    COOKIE_SECURE: 'false',
    ...extra,
  };
}

const run = (command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) =>
  runToEnd(command, args, { env, timeoutMs });

/** Lines a program wrote, without npm's own warnings about the machine's configuration. */
const ownLines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('npm warn'));

/**
 * `node src/main.ts serve` on the Node that runs this test (or `npm start`, as the README says);
 * resolves once /readyz answers 200.
 */
async function startServer(
  dataDir: string,
  extra: Record<string, string> = {},
  via: 'node' | 'npm' = 'node',
): Promise<ServiceProcess> {
  const server = await startProcess({
    ...(via === 'npm' && { command: 'npm', args: ['start'] }),
    env: { DATA_DIR: dataDir, ...extra },
  });
  await server.ready();
  return server;
}

/** Sends SIGTERM and waits (bounded) for the process to end. */
async function stopServer(
  server: ServiceProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { code, signal } = await server.terminate(15_000);
  return { code, signal };
}

const waitForOutput = (server: ServiceProcess, text: string, timeoutMs = 5_000) =>
  server.waitForOutput(text, timeoutMs);

interface Session {
  cookie: string;
  csrf: string;
  setCookies: string[];
  user: { id: string; email: string; org_role: string };
}

async function login(base: string, email: string, password = PASSWORD): Promise<Session> {
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  const setCookies = response.headers.getSetCookie();
  const pairs = Object.fromEntries(setCookies.map((c) => c.split(';')[0]!.split(/=(.*)/s).slice(0, 2)));
  expect(Object.keys(pairs).sort()).toEqual(['csrf_token', 'session']);
  const { user } = (await response.json()) as { user: Session['user'] };
  return {
    cookie: `session=${pairs.session}; csrf_token=${pairs.csrf_token}`,
    csrf: pairs.csrf_token!,
    setCookies,
    user,
  };
}

async function call(
  base: string,
  method: string,
  url: string,
  auth: { session?: Session; bearer?: string; csrf?: boolean },
  body?: unknown,
): Promise<Pick<Response, 'status' | 'body'>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth.session) headers.cookie = auth.session.cookie;
  if (auth.session && auth.csrf !== false && method !== 'GET') headers['x-csrf-token'] = auth.session.csrf;
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  const response = await fetch(`${base}${url}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

// The last three tests each start their own server on their own DATA_DIR and port, and mostly wait
// on a process's start-up or exit: they run side by side (it.concurrent).
describe('the embedded store, end to end', () => {
  it('runs on Node 24 or newer, which executes the TypeScript sources as they are', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('creates an admin, serves, refuses a second process on the store, stops on SIGTERM and keeps the data', async () => {
    const dataDir = await seededDataDir();
    const email = `admin-${Date.now().toString(36)}@example.com`;
    // The password comes from the environment: npm echoes a command line, and `ps` shows it.
    const created = await run(
      'npm',
      ['run', 'cli', '--', 'create-admin', '--email', email, '--org', 'E2E Org'],
      childEnv(dataDir, await freePort(), { ADMIN_PASSWORD: PASSWORD }),
      60_000,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout + created.stderr).not.toContain(PASSWORD);
    expect(created.stdout).toMatch(
      new RegExp(`Created organization "E2E Org" \\([0-9a-f-]{36}\\) with owner ${email}`),
    );
    expect(fs.existsSync(path.join(dataDir, 'dbops.lock'))).toBe(false);

    const server = await startServer(dataDir);
    const session = await login(server.base, email);
    expect(session.user).toMatchObject({ email, org_role: 'owner' });
    expect(session.setCookies.find((c) => c.startsWith('session='))).toMatch(/HttpOnly/i);
    expect(session.setCookies.join('\n')).not.toMatch(/;\s*Secure/i);

    const noCsrf = await call(
      server.base,
      'POST',
      '/api/v1/projects',
      { session, csrf: false },
      { name: 'Nope' },
    );
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual({ detail: 'CSRF token missing or invalid' });
    const project = await call(server.base, 'POST', '/api/v1/projects', { session }, { name: 'Survivor' });
    expect(project.status).toBe(201);
    expect(project.body.name).toBe('Survivor');

    const key = await call(
      server.base,
      'POST',
      '/api/v1/api-keys',
      { session },
      { name: 'e2e', scopes: ['read'] },
    );
    expect(key.status).toBe(201);
    expect(key.body.secret).toMatch(/^ak_[0-9A-Za-z]{8}_[0-9A-Za-z]{32,}$/);
    const listed = await call(server.base, 'GET', '/api/v1/projects', { bearer: key.body.secret });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, page: 1, page_size: 50 });
    expect(listed.body.items.map((p: { id: string }) => p.id)).toEqual([project.body.id]);

    // Operator commands work while the server runs: the server answers them on its socket.
    const second = `second-${Date.now().toString(36)}@example.com`;
    const secondAdmin = await run(
      process.execPath,
      ['src/main.ts', 'create-admin', '--email', second, '--org', 'Second org'],
      childEnv(dataDir, await freePort(), { ADMIN_PASSWORD: PASSWORD }),
      20_000,
    );
    expect(secondAdmin.code, secondAdmin.stderr).toBe(0);
    expect(secondAdmin.stdout).toMatch(/Created organization "Second org" \([0-9a-f-]{36}\) with owner/);
    const plan = await run(
      process.execPath,
      ['src/main.ts', 'set-plan', '--org', 'Second org', '--plan', 'pro'],
      childEnv(dataDir, await freePort()),
      20_000,
    );
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('is on the Pro plan: 300 requests per minute');
    const unknown = await run(
      process.execPath,
      ['src/main.ts', 'set-plan', '--org', 'Nobody', '--plan', 'pro'],
      childEnv(dataDir, await freePort()),
      20_000,
    );
    expect(unknown.code).toBe(1);
    expect(ownLines(unknown.stderr)).toEqual(['No organization has the id or name "Nobody"']);

    // A second server on the same store stops at once with one line; it neither hangs nor writes.
    const busy = await run(
      process.execPath,
      ['src/main.ts', 'serve'],
      childEnv(dataDir, await freePort()),
      20_000,
    );
    expect(busy.code).toBe(1);
    expect(busy.ms).toBeLessThan(10_000);
    expect(busy.stdout).toBe('');
    const lines = ownLines(busy.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`is in use by another dbops process (pid ${server.child.pid})`);
    expect(fs.readFileSync(path.join(dataDir, 'dbops.lock'), 'utf8')).toBe(String(server.child.pid));

    // The running server is unharmed.
    expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    expect((await call(server.base, 'GET', '/api/v1/projects', { bearer: key.body.secret })).body.total).toBe(
      1,
    );

    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(dataDir, 'dbops.lock'))).toBe(false);

    const again = await startServer(dataDir);
    try {
      const later = await login(again.base, email);
      const projects = await call(again.base, 'GET', '/api/v1/projects', { session: later });
      expect(projects.status).toBe(200);
      expect(projects.body.items.map((p: { name: string }) => p.name)).toEqual(['Survivor']);
      expect((await call(again.base, 'GET', '/api/v1/projects', { bearer: key.body.secret })).status).toBe(
        200,
      );
      const secondOwner = await fetch(`${again.base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: second, password: PASSWORD }),
      });
      expect(secondOwner.status).toBe(200);
    } finally {
      expect(await stopServer(again)).toEqual({ code: 0, signal: null });
    }
  }, 180_000);

  it.concurrent('stops `npm start` on SIGTERM to npm: the service exits, frees its port and its store', async () => {
    const dataDir = await seededDataDir();
    const server = await startServer(dataDir, {}, 'npm');
    const port = Number(new URL(server.base).port);
    // npm ends as it was told to (it re-raises the signal); what matters is what it leaves behind.
    await stopServer(server);
    // Nothing of the process group is left: npm, its shell and the service itself.
    const deadline = Date.now() + 15_000;
    while (groupAlive(server.child.pid!) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(server.child.pid!), server.output()).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'dbops.lock'))).toBe(false);
    await new Promise<void>((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
    });
  }, 150_000);

  it.concurrent('says how to create an admin when the store is empty and ADMIN_EMAIL is not set', async () => {
    const server = await startServer(await seededDataDir());
    try {
      await waitForOutput(server, 'No users yet');
      expect(server.output()).toContain('create-admin --email');
      expect(server.output()).toContain('ADMIN_EMAIL and ADMIN_PASSWORD');
    } finally {
      expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    }
  }, 150_000);

  // The one start from nothing: initdb and every migration, as on a user's first `npm start`.
  it.concurrent('creates the owner on the first start from ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
    const email = `boot-${Date.now().toString(36)}@example.com`;
    const server = await startServer(tempDataDir(), {
      ADMIN_EMAIL: email,
      ADMIN_PASSWORD: PASSWORD,
      ADMIN_ORG: 'Booted Org',
    });
    try {
      const session = await login(server.base, email);
      expect(session.user).toMatchObject({ email, org_role: 'owner' });
      const org = await call(server.base, 'GET', '/api/v1/orgs/current', { session });
      expect(org.status).toBe(200);
      expect(org.body.name).toBe('Booted Org');
      expect(server.output()).not.toContain('No users yet');
      expect(server.output()).not.toContain(PASSWORD);
    } finally {
      expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    }
  }, 150_000);
});
