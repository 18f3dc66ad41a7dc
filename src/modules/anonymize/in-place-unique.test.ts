// In-place runs on unique columns, on the real PostgreSQL and MariaDB test servers: a shuffle of a
// unique text column and of a unique integer column (values swapped between rows), and a keyed
// transform of a primary key that other rows reference, where one row's new value is another row's
// old value. Written back in one UPDATE, each would collide halfway (both engines check a unique key
// that is not deferrable row by row); through temporary values they do not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { columnShape } from '../../engine/anonymize/column-type.ts';
import { compileTransformer } from '../../engine/anonymize/compile.ts';

const API = '/api/v1';
const KEY = 'unique-swap-test-key-0123456789';
const engines = await targetEngines('in-place runs on unique columns (in-place-unique.test.ts)');

const EMAIL_RULE = { transformer: 'fake' as const, options: { kind: 'email' } };
/** The replacement the run gives an e-mail of `users.email` (varchar(120) NOT NULL), as the engine computes it. */
const fakeEmail = compileTransformer(
  EMAIL_RULE,
  columnShape('varchar(120)', false),
  Buffer.from(KEY, 'utf8'),
);
const chain = (start: string, length: number) => {
  const out = [start];
  while (out.length < length) out.push(String(fakeEmail(out[out.length - 1])));
  return out;
};
// Each e-mail is the replacement of the one before: whichever row is written first takes a value a
// later row still holds.
const EMAILS = [...chain('ada@lovelace.org', 6), ...chain('bob@builder.net', 6)];
const DATA =
  `insert into codes (id, code, n) select i, concat('code-', i), 1000 + i from numbers;` +
  `insert into users (email, name) values ${EMAILS.map((e, i) => `('${e}', 'user ${i}')`).join(', ')};` +
  `insert into posts (id, author) values ${EMAILS.map((e, i) => `(${i}, '${e}'), (${100 + i}, '${e}')`).join(', ')};`;

const ENGINES = [
  {
    ...engines.postgresql,
    schema:
      'create table numbers as select generate_series(1, 300) as i; ' +
      'create table codes (id int primary key, code varchar(20) not null unique, n int not null unique); ' +
      'create table users (email varchar(120) primary key, name text not null); ' +
      'create table posts (id int primary key, author varchar(120) not null constraint posts_author_fk references users (email)); ',
    fkValid: "select convalidated as valid from pg_constraint where conname = 'posts_author_fk'",
  },
  {
    ...engines.mysql,
    schema:
      'create table numbers as select seq as i from seq_1_to_300; ' +
      'create table codes (id int primary key, code varchar(20) not null unique, n int not null unique); ' +
      'create table users (email varchar(120) primary key, name text not null); ' +
      'create table posts (id int primary key, author varchar(120) not null, ' +
      'constraint posts_author_fk foreign key (author) references users (email)); ',
    fkValid:
      "select 1 as valid from information_schema.referential_constraints where constraint_name = 'posts_author_fk' and constraint_schema = database()",
  },
];

describe('in-place runs on unique columns', () => {
  let t: TestApp;
  const databases: { drop(): Promise<void> }[] = [];
  beforeAll(async () => {
    t = await createTestApp({ work: true });
  });
  afterAll(async () => {
    await t?.close();
    for (const database of databases) await database.drop();
  });

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let owner: Client;
      let projectId: string;
      let connectionId: string;
      let url: string;
      const query = (sql: string) => engine.query(url, sql);

      beforeAll(async () => {
        ({ owner } = await t.createOrg(`Unique swap ${engine.name}`));
        projectId = (await owner.post(`${API}/projects`, { name: 'Unique swap' })).body.id;
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(url, engine.schema + DATA);
        const connection = await owner.post(`${API}/connections`, connectionBody(projectId, url));
        expect(connection.status).toBe(201);
        connectionId = connection.body.id;
      });

      const run = async (rules: unknown[]) => {
        const created = await owner.post(`${API}/anonymize/configs`, {
          project_id: projectId,
          connection_id: connectionId,
          name: `cfg-${Math.random().toString(36).slice(2)}`,
          rules,
          key: KEY,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const started = await owner.post(`${API}/anonymize/configs/${created.body.id}/run`);
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        return waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
      };

      it('shuffles a unique text column and a unique integer column without a collision', async () => {
        const before = await query('select id, code, n from codes order by id');
        const done = await run([
          { table: 'codes', column: 'code', transformer: 'shuffle' },
          { table: 'codes', column: 'n', transformer: 'shuffle' },
        ]);
        expect(done.error).toBeNull();
        expect(done.status).toBe('succeeded');
        const after = await query('select id, code, n from codes order by id');
        expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
        expect(after.map((r) => r.code).sort()).toEqual(before.map((r) => r.code).sort());
        expect(after.map((r) => Number(r.n)).sort()).toEqual(before.map((r) => Number(r.n)).sort());
        // Values really moved between rows (a permutation of 300 values leaves few in place).
        expect(after.filter((r, i) => r.code === before[i]!.code).length).toBeLessThan(30);
        expect(after.filter((r, i) => r.n === before[i]!.n).length).toBeLessThan(30);
        // No temporary value is left behind.
        expect(after.filter((r) => String(r.code).startsWith('~'))).toEqual([]);
      });

      it('rewrites a referenced primary key whose new values are other rows’ old values: every row and reference moved, the key valid', async () => {
        const done = await run([{ table: 'users', column: 'email', ...EMAIL_RULE }]);
        expect(done.error).toBeNull();
        expect(done.status).toBe('succeeded');
        const users = await query('select email, name from users order by name');
        expect(users).toEqual(
          EMAILS.map((e, i) => ({ email: fakeEmail(e), name: `user ${i}` })).sort((a, b) =>
            a.name < b.name ? -1 : 1,
          ),
        );
        const posts = await query('select id, author from posts order by id');
        expect(posts).toEqual(
          [
            ...EMAILS.map((e, i) => ({ id: i, author: fakeEmail(e) })),
            ...EMAILS.map((e, i) => ({ id: 100 + i, author: fakeEmail(e) })),
          ].sort((a, b) => a.id - b.id),
        );
        const joined = await query('select count(*) as n from posts p join users u on u.email = p.author');
        expect(Number(joined[0]!.n)).toBe(EMAILS.length * 2);
        expect((await query(engine.fkValid))[0]?.valid).toBeTruthy();
      });
    });
  }
});
