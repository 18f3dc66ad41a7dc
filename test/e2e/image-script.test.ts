// What the container image does, without a container runtime: the Dockerfile's build and start
// steps are scripts/image.sh, run here in a clean copy of the repository (the files git knows, no
// node_modules) on the pinned Node 24: production dependencies only, `migrate` against a real
// PostgreSQL store, an API process that takes no jobs (JOBS_IN_SERVER=false) answering the image's
// health check, a clean stop on SIGTERM, and a missing web build refused with a clear error.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPgDatabase, type TestPgDatabase } from '../support/databases.ts';
import {
  killAll,
  REPO_ROOT,
  runToEnd,
  scrubbedEnv,
  startProcess,
  tempDir,
} from '../support/server-process.ts';

const SECRET_KEY = 'ab'.repeat(32);

/** The pinned Node first on PATH, as the image's base image puts its Node. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...scrubbedEnv(),
  PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  ...extra,
});

/** The files of the repository as a clean checkout has them (tracked and new, not ignored). */
function cleanCopy(): string {
  const dir = path.join(tempDir('dbops-image-'), 'app');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: REPO_ROOT })
    .toString()
    .split('\0')
    .filter((file) => file !== '' && fs.existsSync(path.join(REPO_ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
  }
  return dir;
}

describe('the image steps (scripts/image.sh), in a clean copy of the repository', () => {
  let app: string;
  let database: TestPgDatabase | undefined;

  beforeAll(async () => {
    database = await createTestPgDatabase();
    app = cleanCopy();
    expect(fs.existsSync(path.join(app, 'node_modules'))).toBe(false);
    const built = await runToEnd('bash', ['scripts/image.sh', 'build'], {
      cwd: app,
      env: env(),
      timeoutMs: 280_000,
    });
    expect(built.code, built.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => {
    killAll();
    await database?.drop();
  });

  it('installs the production dependencies only, and the web build', () => {
    expect(fs.existsSync(path.join(app, 'node_modules/fastify/package.json'))).toBe(true);
    expect(fs.existsSync(path.join(app, 'node_modules/pg-boss/package.json'))).toBe(true);
    // devDependencies stay out, Node's own package among them: the base image brings Node.
    expect(fs.existsSync(path.join(app, 'node_modules/vitest'))).toBe(false);
    expect(fs.existsSync(path.join(app, 'node_modules/node'))).toBe(false);
    expect(fs.existsSync(path.join(app, 'node_modules/vite'))).toBe(false);
    if (fs.existsSync(path.join(app, 'web/package.json')))
      expect(fs.existsSync(path.join(app, 'web/dist/index.html'))).toBe(true);
  });

  it('migrates the store, serves without jobs, passes its health check and stops on SIGTERM', async (context) => {
    if (!database) return context.skip();
    const settings = { DATABASE_URL: database.url, SECRET_KEY, JOBS_IN_SERVER: 'false' };
    const migrated = await runToEnd('bash', ['scripts/image.sh', 'start', 'migrate'], {
      cwd: app,
      env: env(settings),
      timeoutMs: 60_000,
    });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/^Applied 0001_foundation, .*0023_credential_epoch/m);

    const api = await startProcess({
      command: 'bash',
      args: ['scripts/image.sh', 'start'],
      cwd: app,
      env: settings,
    });
    const health = () =>
      runToEnd('bash', ['scripts/image.sh', 'health'], {
        cwd: app,
        env: env({ PORT: String(api.port) }),
        timeoutMs: 10_000,
      });
    await api.ready();
    expect((await health()).code).toBe(0);
    const answer = await fetch(`${api.base}/api/v1/auth/me`);
    expect(answer.status).toBe(401);
    // The script hands the process over (exec): the signal reaches the service itself.
    expect(await api.terminate()).toMatchObject({ code: 0, signal: null });
    expect((await health()).code).toBe(1);
  }, 90_000);

  it('refuses to start without the web build when there is a web app, saying what is missing', async () => {
    const web = path.join(app, 'web');
    const dist = path.join(web, 'dist');
    const aside = path.join(app, 'web-dist-aside');
    const hadApp = fs.existsSync(path.join(web, 'package.json'));
    if (!hadApp) {
      fs.mkdirSync(web, { recursive: true });
      fs.writeFileSync(path.join(web, 'package.json'), '{"name":"web","private":true}');
    }
    if (fs.existsSync(dist)) fs.renameSync(dist, aside);
    try {
      const started = await runToEnd('bash', ['scripts/image.sh', 'start'], {
        cwd: app,
        env: env({ DATABASE_URL: database?.url ?? 'postgres://127.0.0.1:1/none', SECRET_KEY }),
        timeoutMs: 20_000,
      });
      expect(started.code).toBe(1);
      expect(started.stderr.trim()).toBe(
        "dbops image: the web app is not built (web/dist/index.html is missing): build the image again, its build step runs 'scripts/image.sh build'",
      );
    } finally {
      if (fs.existsSync(aside)) fs.renameSync(aside, dist);
      if (!hadApp) fs.rmSync(web, { recursive: true, force: true });
    }
  });
});
