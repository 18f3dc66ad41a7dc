// Found from outside: seed generators ran anything faker has. `{kind: "faker", method:
// "string.alpha", args: [{length: 3000000}]}` was saved and its preview took 33 s and 30 MB while
// /healthz waited; `method: "person.constructor"` answered 500. docs/contract.md §9.1 now names an allow-list of
// faker data modules and bounds the arguments (422 naming the column); each generated value is at
// most 64 KiB and a preview at most 1,000 rows and 1 MiB. On a real PostgreSQL target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.ts';
import { connectionBody } from '../support/connections.ts';
import { targetEngines } from '../support/engines.ts';
import { closeSuite, createWorkerProject } from '../support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('seed generator bounds (test/security/seed-generator-bounds.test.ts)');
const WIDE_COLUMNS = 20;

describe.skipIf(!engines.postgresql.up)('seed generators are bounded', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let connectionId: string;
  const databases: { drop(): Promise<void> }[] = [];
  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Seed bounds', project: 'Bounds' }));
    const created = await engines.postgresql.create();
    databases.push(created);
    const wide = Array.from({ length: WIDE_COLUMNS }, (_, i) => `c${i} text`).join(', ');
    await engines.postgresql.load(
      created.url,
      `create table people (id int primary key, name text, bio text);
       create table wide (id int primary key, ${wide});`,
    );
    connectionId = (await owner.post(`${API}/connections`, connectionBody(projectId, created.url))).body.id;
  });
  afterAll(() => closeSuite(t, databases));

  const save = (columns: Record<string, unknown>, table = 'people', rows = 10) =>
    owner.post(`${API}/seed/scenarios`, {
      project_id: projectId,
      connection_id: connectionId,
      name: `s-${Math.random().toString(36).slice(2)}`,
      definition: { tables: [{ table, rows, columns }] },
      seed: 1,
    });
  /** The answer's message, which must name the column. */
  const refusal = (answer: Awaited<ReturnType<typeof save>>) =>
    (answer.body.detail as { loc: unknown[]; msg: string }[])
      .map((d) => `${d.loc.join('.')}: ${d.msg}`)
      .join('; ');

  it.each([
    ['string.alpha', [{ length: 3_000_000 }]],
    ['string.alpha', [3_000_000]],
    ['string.alpha', [{ length: { min: 1, max: 3_000_000 } }]],
    ['lorem.paragraphs', [1_000_000]],
    ['lorem.words', [{ min: 1, max: 10 }, 'x'.repeat(1001)]],
    ['number.int', [{ min: 0, max: 1e12 }]],
    ['person.firstName', Array.from({ length: 11 }, () => 1)],
  ])('%s with args %j out of bounds is refused with 422 naming the column, quickly', async (method, args) => {
    const started = Date.now();
    const answer = await save({ bio: { kind: 'faker', method, args } });
    expect(answer.status).toBe(422);
    expect(refusal(answer)).toMatch(/bio/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each([
    'person.constructor',
    'person.__proto__',
    'constructor.name',
    '__proto__.toString',
    'helpers.arrayElement',
    'helpers.fromRegExp',
    'rawDefinitions.person',
    'person._firstName',
    'faker.person',
    'person.faker',
    'string.toString',
  ])('%s is not a generating method of the allow-list: 422, never 500', async (method) => {
    const answer = await save({ bio: { kind: 'faker', method } });
    expect(answer.status).toBe(422);
    expect(refusal(answer)).toMatch(/bio.*not an allowed faker method/);
  });

  it('arguments a method refuses answer 422 when saved, not 500 at preview', async () => {
    const answer = await save({ bio: { kind: 'faker', method: 'number.int', args: [{ min: 10, max: 1 }] } });
    expect(answer.status).toBe(422);
    expect(refusal(answer)).toMatch(/bio/);
  });

  it('allowed methods within bounds are saved and previewed', async () => {
    const answer = await save({
      name: { kind: 'faker', method: 'person.firstName' },
      bio: { kind: 'faker', method: 'string.alpha', args: [{ length: 10_000 }] },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const preview = await owner.post(`${API}/seed/scenarios/${answer.body.id}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.truncated).toBe(false);
    const rows = preview.body.tables[0].rows as { bio: string }[];
    expect(rows).toHaveLength(10);
    expect(rows.every((r) => /^[A-Za-z]{10000}$/.test(r.bio))).toBe(true);
  });

  it('a generated value over 64 KiB (a template repeating a column) answers 422 naming the column at preview', async () => {
    const answer = await save({
      name: { kind: 'faker', method: 'string.alpha', args: [10_000] },
      bio: { kind: 'template', template: '{name}'.repeat(8) },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const preview = await owner.post(`${API}/seed/scenarios/${answer.body.id}/preview`);
    expect(preview.status).toBe(422);
    expect(refusal(preview)).toMatch(/bio.*64 KiB/);
  });

  it('a preview stays within 1 MiB: later rows are left out and it says so', async () => {
    const columns = Object.fromEntries(
      Array.from({ length: WIDE_COLUMNS }, (_, i) => [
        `c${i}`,
        { kind: 'faker', method: 'string.alpha', args: [10_000] },
      ]),
    );
    const answer = await save(columns, 'wide');
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const started = Date.now();
    const preview = await owner.post(`${API}/seed/scenarios/${answer.body.id}/preview`);
    expect(preview.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    // 20 values of 10,000 characters a row: 200 kB; five rows fit in 1 MiB, the sixth does not.
    expect(preview.body.truncated).toBe(true);
    expect(preview.body.tables[0].rows).toHaveLength(5);
    expect(Buffer.byteLength(JSON.stringify(preview.body))).toBeLessThan(1024 * 1024 + 4096);
  });
});
