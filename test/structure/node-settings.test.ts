// Every way the service is started goes through scripts/node-service.sh, which gives node the
// memory settings a data run's bounds depend on (docs/production.md, Memory): the npm scripts
// (`npm start`, `npm run worker`), the container image (scripts/image.sh) and `npm run bench`, whose
// benches host the service in their own process. A start line that went around it would show only
// as a process that grows.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = 'scripts/node-service.sh';
/** The node running these tests first on PATH, where the script looks for it. */
const NODE_FIRST = `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`;
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
  .scripts;

describe('how the service is started', () => {
  it.each(['start', 'worker', 'bench'])('npm run %s goes through the settings script', (name) => {
    expect(scripts[name]).toMatch(new RegExp(`^(exec )?${SCRIPT} `));
  });

  it('and so does the container image', () => {
    const image = readFileSync('scripts/image.sh', 'utf8');
    expect(image).toMatch(new RegExp(`^\\s*exec ${SCRIPT} .*src/main\\.ts`, 'm'));
    expect(image).not.toMatch(/^\s*exec node .*src\/main\.ts/m);
  });

  it('which hands node its settings and the allocator its environment, an operator’s own values first', () => {
    const probe = `console.log(JSON.stringify({ argv: process.execArgv, arena: process.env.MALLOC_ARENA_MAX }))`;
    const run = (env: Record<string, string>) =>
      JSON.parse(
        execFileSync(SCRIPT, ['-e', probe], {
          env: { ...process.env, PATH: NODE_FIRST, ...env },
        }).toString(),
      );
    const given = run({});
    expect(given.argv).toEqual(expect.arrayContaining(['--max-semi-space-size=16']));
    expect(given).toMatchObject({ arena: '2' });
    expect(run({ MALLOC_ARENA_MAX: '4' })).toMatchObject({ arena: '4' });
  });
});
