// Seed scenario definitions checked against the live schema when saved (docs/contract.md §9.1): every kind of bad
// input answers 422 naming what is wrong and stores nothing; CRUD and its audit entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const BASE = `${API}/seed/scenarios`;
const engines = await targetEngines('seed scenarios (seeds.test.ts)');

const SCHEMA = `
create table authors (id int primary key, name varchar(60) not null, born date, score int not null check (score > 0),
  kind varchar(8) not null check (kind in ('poet', 'writer')), code varchar(4) not null unique);
create table books (id int primary key, author_id int not null, title varchar(80) not null,
  constraint books_author_fk foreign key (author_id) references authors(id));
create table publishers (id int primary key, name varchar(40) not null);
create table editions (id int primary key, publisher_id int not null,
  constraint editions_publisher_fk foreign key (publisher_id) references publishers(id));
create table hens (id int primary key, egg_id int not null);
create table eggs (id int primary key, hen_id int not null,
  constraint eggs_hen_fk foreign key (hen_id) references hens(id));
alter table hens add constraint hens_egg_fk foreign key (egg_id) references eggs(id);
create table codes (id int primary key, code varchar(8) not null, constraint codes_length check (char_length(code) + 0 = 3));
create table offices (id int primary key, country char(2) not null unique, city varchar(40) not null);
`;

describe('seed scenarios', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];
  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Seed checks', project: 'Checks' }));
  });
  afterAll(() => closeSuite(t, databases));

  for (const engine of [engines.postgresql, engines.mysql]) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let connectionId: string;
      let url: string;
      beforeAll(async () => {
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(created.url, SCHEMA);
        connectionId = (await owner.post(`${API}/connections`, connectionBody(projectId, created.url))).body
          .id;
      });
      const save = (tables: unknown[], extra: Record<string, unknown> = {}) =>
        owner.post(BASE, {
          project_id: projectId,
          connection_id: connectionId,
          name: `s-${Math.random().toString(36).slice(2)}`,
          definition: { tables },
          seed: 1,
          ...extra,
        });
      const refused = async (tables: unknown[], message: RegExp, type?: string) => {
        const answer = await save(tables);
        expect(answer.status, JSON.stringify(answer.body)).toBe(422);
        const details = answer.body.detail as { loc: unknown[]; msg: string; type: string }[];
        expect(
          details.some((d) => message.test(d.msg)),
          JSON.stringify(details),
        ).toBe(true);
        if (type) expect(details.map((d) => d.type)).toContain(type);
        expect(details.every((d) => d.loc[0] === 'body')).toBe(true);
      };

      it('names an unknown table, column or generator kind', async () => {
        await refused([{ table: 'nope', rows: 1 }], /Unknown table nope/, 'unknown_table');
        await refused(
          [{ table: 'authors', rows: 1, columns: { nope: { kind: 'null' } } }],
          /Unknown column nope/,
          'unknown_column',
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { name: { kind: 'lorem' } } }],
          /Unknown generator kind "lorem"/,
          'unknown_generator',
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { name: { kind: 'faker', method: 'person.nope' } } }],
          /not an allowed faker method/,
        );
      });

      it('refuses a generator that does not fit the column, and options out of range', async () => {
        await refused(
          [{ table: 'authors', rows: 1, columns: { born: { kind: 'int', min: 1, max: 2 } } }],
          /int generator does not fit born/,
          'generator_mismatch',
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { score: { kind: 'int', min: 9, max: 2 } } }],
          /min \(9\) is above max \(2\)/,
        );
        await refused(
          [
            {
              table: 'authors',
              rows: 1,
              columns: { born: { kind: 'date', from: '2020-01-01', to: '2019-01-01' } },
            },
          ],
          /from \(2020-01-01\) is after to/,
        );
        await refused(
          [
            {
              table: 'authors',
              rows: 1,
              columns: { kind: { kind: 'choice', values: ['poet', 'writer'], weights: [1] } },
            },
          ],
          /weights has 1 entries for 2 values/,
        );
        await refused(
          [
            {
              table: 'authors',
              rows: 1,
              columns: { name: { kind: 'template', template: '{first} {last}' } },
            },
          ],
          /\{first\}, \{last\}/,
          'unknown_column',
        );
        await refused([{ table: 'authors', rows: 1, columns: { name: { kind: 'null' } } }], /NOT NULL/);
        await refused(
          [
            {
              table: 'authors',
              rows: 1,
              columns: { name: { kind: 'constant', value: 'x', null_ratio: 0.5 } },
            },
          ],
          /null_ratio must be 0/,
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { title: { kind: 'reference' } } }],
          /Unknown column title/,
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { name: { kind: 'reference' } } }],
          /not a column of a foreign key/,
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { name: { kind: 'constant', value: 'x'.repeat(61) } } }],
          /longer than 60/,
        );
      });

      it('refuses values that break a CHECK, and a unique column without enough distinct values', async () => {
        await refused(
          [{ table: 'authors', rows: 1, columns: { kind: { kind: 'choice', values: ['poet', 'painter'] } } }],
          /painter breaks a CHECK/,
        );
        await refused(
          [{ table: 'authors', rows: 1, columns: { score: { kind: 'int', min: 0, max: 5 } } }],
          /breaks a CHECK/,
        );
        await refused(
          [{ table: 'authors', rows: 10, columns: { code: { kind: 'choice', values: ['a', 'b'] } } }],
          /unique, but its choice generator has only 2 distinct values for 10 rows/,
          'unique_capacity',
        );
      });

      it('refuses rows out of range, an unpopulated parent outside the scenario, and a cycle of NOT NULL keys', async () => {
        const rows = await save([{ table: 'authors', rows: -1 }]);
        expect(rows.status).toBe(422);
        expect((await save([{ table: 'authors', rows: 10_000_001 }])).status).toBe(422);
        await refused(
          [{ table: 'books', rows: 5 }],
          /references (public\.)?authors, which is neither in the scenario \(with rows\) nor holds rows/,
          'parent_missing',
        );
        await refused(
          [
            { table: 'authors', rows: 0 },
            { table: 'books', rows: 5 },
          ],
          /references (public\.)?authors, which is neither in the scenario \(with rows\)/,
          'parent_missing',
        );
        await refused(
          [
            { table: 'hens', rows: 5 },
            { table: 'eggs', rows: 5 },
          ],
          /NOT NULL foreign keys of (public\.)?eggs, (public\.)?hens form a cycle/,
          'not_null_cycle',
        );
        const list = await owner.get(`${BASE}?project_id=${projectId}`);
        expect(
          list.body.items.filter((s: { connection_id: string }) => s.connection_id === connectionId),
        ).toEqual([]);
      });

      it('accepts a parent that holds rows, and saves, lists, edits and deletes with audit entries', async () => {
        await engine.query(url, "insert into publishers (id, name) values (1, 'Acme')");
        const childOnly = await save([{ table: 'editions', rows: 5 }]);
        expect(childOnly.status, JSON.stringify(childOnly.body)).toBe(201);
        const created = await save([
          {
            table: 'authors',
            rows: 5,
            columns: { score: { kind: 'int', min: 1, max: 3 }, kind: { kind: 'choice', values: ['poet'] } },
          },
          { table: 'books', rows: 20 },
        ]);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toMatchObject({ project_id: projectId, connection_id: connectionId, seed: 1 });
        const id = created.body.id;
        expect((await save([{ table: 'publishers', rows: 1 }], { name: created.body.name })).status).toBe(
          409,
        );
        const edited = await owner.patch(`${BASE}/${id}`, {
          seed: 9,
          definition: { locale: 'fr', tables: [{ table: 'publishers', rows: 3 }] },
        });
        expect(edited.status, JSON.stringify(edited.body)).toBe(200);
        expect(edited.body).toMatchObject({ seed: 9, definition: { locale: 'fr' } });
        expect(
          (await owner.patch(`${BASE}/${id}`, { definition: { tables: [{ table: 'nope', rows: 1 }] } }))
            .status,
        ).toBe(422);
        expect((await owner.get(`${BASE}/${id}`)).body.definition.tables[0].table).toBe('publishers');
        expect((await owner.delete(`${BASE}/${id}`)).status).toBe(204);
        expect((await owner.get(`${BASE}/${id}`)).status).toBe(404);
        const audit = await owner.get(`${API}/audit?project_id=${projectId}&page_size=200`);
        const actions = (audit.body.items as { action: string; target?: { id?: string } }[])
          .filter((e) => JSON.stringify(e).includes(id))
          .map((e) => e.action);
        expect(actions).toEqual(
          expect.arrayContaining(['seed_scenario.create', 'seed_scenario.update', 'seed_scenario.delete']),
        );
      });

      it('fails a run on a CHECK it cannot read, naming it, and writes nothing', async () => {
        const saved = await save([
          { table: 'authors', rows: 3, columns: { kind: { kind: 'constant', value: 'poet' } } },
          { table: 'codes', rows: 10 },
        ]);
        expect(saved.status, JSON.stringify(saved.body)).toBe(201);
        const started = await owner.post(`${BASE}/${saved.body.id}/run`);
        expect(started.status).toBe(202);
        const run = await waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.status).toBe('failed');
        expect(run.error).toMatch(/codes_length/);
        expect(run.error).toMatch(/wrote nothing/);
        expect(run.result).toEqual({ tables: [], rows_total: 0 });
        expect(Number((await engine.query(url, 'select count(*) as n from authors'))[0]?.n)).toBe(0);
        expect(Number((await engine.query(url, 'select count(*) as n from codes'))[0]?.n)).toBe(0);
      });

      it('writes a unique country column as real codes, each once, and refuses more rows than countries', async () => {
        await refused(
          [{ table: 'offices', rows: 300 }],
          /offices\.country is unique, but its inferred country values are a closed list of \d+ for 300 rows/,
          'unique_capacity',
        );
        const saved = await save([{ table: 'offices', rows: 200 }]);
        expect(saved.status, JSON.stringify(saved.body)).toBe(201);
        const started = await owner.post(`${BASE}/${saved.body.id}/run`);
        expect(started.status).toBe(202);
        const run = await waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.status, JSON.stringify(run.error)).toBe('succeeded');
        const countries = (await engine.query(url, 'select country from offices')).map((r) =>
          String(r.country),
        );
        expect(countries).toHaveLength(200);
        expect(new Set(countries).size).toBe(200);
        for (const code of countries) expect(code).toMatch(/^[A-Z]{2}$/);
        await engine.query(url, 'delete from offices');
      });

      // Each preview reads the parents' keys and the unique values already there; were it to do
      // so while holding a session of the connection's small pool, a pool's worth of previews at
      // once would each wait for a session another holds (they answered 502 after 10 s).
      it('answers a pool’s worth of concurrent previews on one connection', async () => {
        await engine.query(
          url,
          "insert into authors (id, name, score, kind, code) values (1, 'A', 1, 'poet', 'c1')",
        );
        const saved = await save([
          { table: 'authors', rows: 3, columns: { kind: { kind: 'constant', value: 'poet' } } },
          { table: 'books', rows: 5 },
        ]);
        expect(saved.status, JSON.stringify(saved.body)).toBe(201);
        const answers = await Promise.all(
          Array.from({ length: 6 }, () => owner.post(`${BASE}/${saved.body.id}/preview`)),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
        await engine.query(url, 'delete from authors');
      });
    });
  }
});
