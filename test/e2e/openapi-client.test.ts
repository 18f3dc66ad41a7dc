// /openapi.json is good enough to generate a client from: openapi-typescript turns the description
// of a freshly started server into types, tsc checks a small program written against them with
// openapi-fetch (strict, and without a single cast: what it reads is what the document says), and
// that program then runs the README walk-through against the server: sign in, CSRF, create a
// project, create an API key, list the projects with the key.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type ServerProcess, scrubbedEnv, startServerProcess } from '../support/server-process.ts';

const ADMIN = {
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_ORG: 'Acme',
  ADMIN_PASSWORD: 'correct horse battery',
};

/** The client program: only what the generated types allow, so a wrong document fails tsc. */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

type User = components['schemas']['User'];
type Project = components['schemas']['Project'];
type ProjectPage = components['schemas']['ProjectPage'];

function fail(what: string, error: unknown): never {
  throw new Error(\`\${what}: \${JSON.stringify(error)}\`);
}

const client = createClient<paths>({ baseUrl: process.env.BASE ?? '' });

// Sign in: the session and csrf_token cookies come back in Set-Cookie.
const login = await client.POST('/api/v1/auth/login', {
  body: { email: process.env.ADMIN_EMAIL ?? '', password: process.env.ADMIN_PASSWORD ?? '' },
});
if (!login.data) fail('sign in', login.error);
if (!('user' in login.data)) fail('sign in asked for a second factor', login.data);
const user: User = login.data.user;
const cookies = new Map<string, string>();
for (const line of login.response.headers.getSetCookie()) {
  const [pair = ''] = line.split(';');
  const at = pair.indexOf('=');
  cookies.set(pair.slice(0, at), pair.slice(at + 1));
}
// Mutating requests with the session echo the csrf_token cookie in X-CSRF-Token.
const session = {
  cookie: [...cookies].map(([name, value]) => \`\${name}=\${value}\`).join('; '),
  'x-csrf-token': cookies.get('csrf_token') ?? '',
};

const created = await client.POST('/api/v1/projects', {
  body: { name: 'Payments', description: 'Billing databases' },
  headers: session,
});
if (!created.data) fail('create a project', created.error);
const project: Project = created.data;

const key = await client.POST('/api/v1/api-keys', { body: { name: 'ci', scopes: ['read'] }, headers: session });
if (!key.data) fail('create an API key', key.error);
const secret: string = key.data.secret;

// No page, no page_size: both are optional.
const listed = await client.GET('/api/v1/projects', { headers: { authorization: \`Bearer \${secret}\` } });
if (!listed.data) fail('list the projects', listed.error);
const page: ProjectPage = listed.data;

console.log(
  JSON.stringify({
    user: user.email,
    created: project.id,
    listed: page.items.map((item) => ({ id: item.id, name: item.name, badges: item.pending_approvals })),
    total: page.total,
    page: page.page,
    page_size: page.page_size,
  }),
);
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'es2024',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2024'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
  },
  include: ['*.ts'],
};

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = scrubbedEnv()) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('a client generated from /openapi.json', () => {
  let server: ServerProcess;
  let dir: string;

  beforeAll(async () => {
    server = await startServerProcess(ADMIN);
    await server.ready();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-client-'));
    // The program's imports (openapi-fetch, @types/node) resolve from the repository's packages.
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    fs.writeFileSync(path.join(dir, 'walkthrough.ts'), PROGRAM);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is generated, type-checks with a cast-free program, and runs the walk-through', async () => {
    const answer = await fetch(`${server.base}/openapi.json`);
    expect(answer.status).toBe(200);
    const types = astToString(await openapiTS(await answer.text()));
    fs.writeFileSync(path.join(dir, 'api.ts'), types);
    // Named components make readable types.
    for (const name of ['Project', 'ProjectPage', 'CreateProjectRequest', 'Run', 'PatchExecuteResult'])
      expect(types).toMatch(new RegExp(`\\b${name}: \\{`));
    expect(PROGRAM).not.toMatch(/\bas\b|\bany\b|@ts-/);

    const tsc = await run([path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], dir);
    expect(tsc.output).toBe('');
    expect(tsc.code).toBe(0);

    const walk = await run(['walkthrough.ts'], dir, {
      ...scrubbedEnv(),
      BASE: server.base,
      ADMIN_EMAIL: ADMIN.ADMIN_EMAIL,
      ADMIN_PASSWORD: ADMIN.ADMIN_PASSWORD,
    });
    expect(walk.code, `${walk.output}\n--- server ---\n${server.output()}`).toBe(0);
    const result = JSON.parse(walk.output.trim().split('\n').at(-1)!);
    expect(result).toEqual({
      user: ADMIN.ADMIN_EMAIL,
      created: expect.any(String),
      listed: [{ id: result.created, name: 'Payments', badges: 0 }],
      total: 1,
      page: 1,
      page_size: 50,
    });
  }, 120_000);
});
