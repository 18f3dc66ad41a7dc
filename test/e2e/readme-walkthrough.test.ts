// The walk-through (docs/walkthrough.md), run as written: its ```sh walkthrough blocks, in order, in
// one bash, against the real server started the way its unmarked block starts it (the embedded
// store in a temporary DATA_DIR, the first administrator from ADMIN_EMAIL and ADMIN_PASSWORD), on a
// free port. Install and test commands are not marked and not run. The run must succeed, never
// print the password, and leave nothing in the folder it runs in.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type ServerProcess, scrubbedEnv, startServerProcess } from '../support/server-process.ts';

const ADMIN = {
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_ORG: 'Acme',
  ADMIN_PASSWORD: 'correct horse battery staple',
};

/** The bodies of the fenced blocks whose info string is `sh walkthrough`, in document order. */
function walkthroughBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const match of markdown.matchAll(/^```sh walkthrough[ \t]*\n([\s\S]*?)^```[ \t]*$/gm))
    blocks.push(match[1]!);
  return blocks;
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the walk-through of docs/walkthrough.md', () => {
  const blocks = walkthroughBlocks(fs.readFileSync(path.join(REPO_ROOT, 'docs', 'walkthrough.md'), 'utf8'));
  let server: ServerProcess;
  let work: string;

  beforeAll(async () => {
    const curl = await runBash('command -v curl', os.tmpdir(), scrubbedEnv());
    if (curl.code !== 0)
      throw new Error('The README walk-through needs curl on the PATH (apt-get install curl)');
    // Not waited for here: the walk-through's own /readyz loop is part of what is tested.
    server = await startServerProcess(ADMIN);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-walkthrough-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('has the marked blocks, waiting on /readyz rather than sleeping', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.join('\n')).toContain('/readyz');
    expect(blocks.join('\n')).not.toMatch(/\bsleep [1-9]/);
  });

  it('runs against a fresh server: signs in, creates a project and a key, lists with the key', async () => {
    const password = ADMIN.ADMIN_PASSWORD;
    const script = ['set -euo pipefail', ...blocks].join('\n');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-walkthrough-tmp-'));
    const result = await runBash(script, work, {
      ...scrubbedEnv(),
      PORT: String(server.port),
      ADMIN_EMAIL: ADMIN.ADMIN_EMAIL,
      ADMIN_PASSWORD: password,
      TMPDIR: tmp,
    });
    const transcript = `${result.stdout}\n${result.stderr}\n--- server ---\n${server.output()}`;
    expect(result.code, transcript).toBe(0);
    expect(result.stdout).toContain('"status":"ready"');
    expect(result.stdout).toContain(`"email":"${ADMIN.ADMIN_EMAIL}"`);
    const lines = result.stdout.trim().split('\n');
    const listed = JSON.parse(lines.at(-1)!) as { items: { name: string }[]; total: number };
    expect(listed.items.map((p) => p.name)).toEqual(['Payments']);
    expect(listed.total).toBe(1);
    expect(transcript).not.toContain(password);
    // The cookie jar went to a temporary folder, and the walk-through removed it.
    expect(fs.readdirSync(work)).toEqual([]);
    expect(fs.readdirSync(tmp)).toEqual([]);
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});
