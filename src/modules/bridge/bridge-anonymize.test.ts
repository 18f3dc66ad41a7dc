// A bridge run with an anonymization config (docs/contract.md §9.3 `anonymize_config_id`) on the real PostgreSQL
// and MariaDB test servers, PostgreSQL → PostgreSQL and MariaDB → PostgreSQL: no clear value of a
// masked column reaches the target, a transformed key still joins (its rule taken along the foreign
// key), the same key gives the same rows in every run and from either engine, and the refusals:
// unknown config or one of another project (404), rules that do not fit the source (422), strict
// mode with personal columns left uncovered (409), a config changed after the request (the run
// fails, writing nothing).
import { describe, expect, it } from 'vitest';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';

const API = '/api/v1';
const engines = await targetEngines('bridge with anonymization (bridge-anonymize.test.ts)');
const up = engines.postgresql.up && engines.mysql.up;

const PG_SCHEMA = `
  create table customer (id int primary key, email varchar(120) not null unique, name text,
    phone varchar(40), note text);
  create table orders (id int primary key,
    customer_email varchar(200) constraint orders_customer_fk references customer (email), total numeric(10,2));
`;
const MYSQL_SCHEMA = `
  create table customer (id int primary key, email varchar(120) not null unique, name text,
    phone varchar(40), note text);
  create table orders (id int primary key, customer_email varchar(200), total decimal(10,2),
    constraint orders_customer_fk foreign key (customer_email) references customer (email));
`;
const NAMES = ['Ada Lovelace', 'Bob Builder', 'Cy Borg', 'Di Prince', 'Ed Wood', 'Flo Rida'];
const DATA = Array.from({ length: 120 }, (_, i) => {
  const n = i + 1;
  return (
    `insert into customer values (${n}, 'person${n}@mail${n % 7}.org', '${NAMES[n % NAMES.length]} ${n}', ` +
    `'+44 20 7946 ${String(1000 + n).padStart(4, '0')}', 'note ${n}');`
  );
})
  .concat(
    Array.from(
      { length: 300 },
      (_, i) =>
        `insert into orders values (${i + 1}, ${i % 10 === 9 ? 'null' : `'person${1 + (i % 120)}@mail${(1 + (i % 120)) % 7}.org'`}, ${i + 0.5});`,
    ),
  )
  .join('\n');

const RULES = [
  { table: 'customer', column: 'email', transformer: 'fake', options: { kind: 'email' } },
  { table: 'customer', column: 'name', transformer: 'mask', options: { keep_end: 0 } },
  { table: 'customer', column: 'phone', transformer: 'hash', options: { length: 20 } },
  { table: 'customer', column: 'note', transformer: 'shuffle' },
];

describe.skipIf(!up)('bridge runs with an anonymization config', () => {
  const suite = bridgeSuite({ org: 'Bridge anon org', project: 'Anon' }, async ({ database }) => {
    await database('pg_source', engines.postgresql, PG_SCHEMA + DATA);
    await database('my_source', engines.mysql, MYSQL_SCHEMA + DATA);
    await database('pg_target', engines.postgresql, PG_SCHEMA);
    await database('pg_target2', engines.postgresql, PG_SCHEMA);
    configId = await config({ rules: RULES, key: 'bridge-anonymize-test-key-0001' });
  });
  const { urls, ids, database, bridge, copied } = suite;
  let configId: string;
  const config = async (body: Record<string, unknown>) => {
    const created = await suite.owner.post(`${API}/anonymize/configs`, {
      project_id: suite.projectId,
      connection_id: ids.pg_source,
      name: `config ${Math.random().toString(36).slice(2)}`,
      ...body,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  const pg = (name: string, sql: string) => engines.postgresql.query(urls[name]!, sql);
  const customers = (name: string) =>
    pg(name, 'select id, email, name, phone, note from customer order by id');

  it('PostgreSQL → PostgreSQL: no clear value of a masked column in the target, joins on the transformed key match, keys valid', async () => {
    const run = await copied({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      anonymize_config_id: configId,
    });
    expect(run.error).toBeNull();
    expect(run.result).toMatchObject({
      tables: [
        { table: 'public.customer', rows: 120 },
        { table: 'public.orders', rows: 300 },
      ],
      anonymize_config_id: configId,
    });
    const before = await customers('pg_source');
    const after = await customers('pg_target');
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
    for (const column of ['email', 'name', 'phone']) {
      const clear = new Set(before.map((r) => r[column]));
      expect(
        after.filter((r) => clear.has(r[column])),
        column,
      ).toEqual([]);
    }
    // The mask keeps the length; the e-mails stay distinct; the shuffle keeps the values, moved.
    after.forEach((r, i) => {
      expect(String(r.name)).toMatch(/^\*+$/);
      expect(String(r.name).length).toBe(String(before[i]!.name).length);
      expect(String(r.email)).toMatch(/@example\.net$/);
      expect(String(r.phone)).toMatch(/^[0-9a-f]{20}$/);
    });
    expect(new Set(after.map((r) => r.email)).size).toBe(120);
    expect(after.map((r) => r.note).sort()).toEqual(before.map((r) => r.note).sort());
    expect(after.filter((r, i) => r.note === before[i]!.note).length).toBeLessThan(20);
    // No clear e-mail in the referencing column either; every order still finds its customer.
    const orderEmails = await pg(
      'pg_target',
      'select customer_email from orders where customer_email is not null',
    );
    expect(orderEmails.filter((r) => before.some((c) => c.email === r.customer_email))).toEqual([]);
    const joins = 'select count(*)::int as n from orders o join customer c on c.email = o.customer_email';
    expect(await pg('pg_target', joins)).toEqual(await pg('pg_source', joins));
    expect(await pg('pg_target', joins)).toEqual([{ n: 270 }]);
    // Each order joins the same customer id as in the source.
    const pairs =
      'select o.id, c.id as customer from orders o join customer c on c.email = o.customer_email order by o.id';
    expect(await pg('pg_target', pairs)).toEqual(await pg('pg_source', pairs));
    expect(
      await pg('pg_target', "select convalidated from pg_constraint where conname = 'orders_customer_fk'"),
    ).toEqual([{ convalidated: true }]);
  });

  it('is deterministic with the same key: a second run, and a run from MariaDB with the same config, give the same rows', async () => {
    const first = await Promise.all(
      ['customer', 'orders'].map((table) => tableChecksum(urls.pg_target!, table)),
    );
    const again = await copied({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      anonymize_config_id: configId,
    });
    expect(again.error).toBeNull();
    expect(
      await Promise.all(['customer', 'orders'].map((table) => tableChecksum(urls.pg_target!, table))),
    ).toEqual(first);
    // The config was saved on the PostgreSQL source; its rules name the same tables on MariaDB.
    const fromMaria = await copied({
      source_connection_id: ids.my_source,
      target_connection_id: ids.pg_target2,
      anonymize_config_id: configId,
    });
    expect(fromMaria.error).toBeNull();
    expect(fromMaria.result).toMatchObject({ tables: [{ rows: 120 }, { rows: 300 }] });
    const pgRows = await customers('pg_target');
    const mariaRows = await customers('pg_target2');
    // Per-value rules give the same values from either engine; the shuffle follows batch boundaries.
    const perValue = (rows: Record<string, unknown>[]) => rows.map(({ note: _, ...rest }) => rest);
    expect(perValue(mariaRows)).toEqual(perValue(pgRows));
    const joins = 'select count(*)::int as n from orders o join customer c on c.email = o.customer_email';
    expect(await pg('pg_target2', joins)).toEqual([{ n: 270 }]);
    const clear = new Set((await customers('pg_source')).map((r) => r.email));
    expect(mariaRows.filter((r) => clear.has(r.email))).toEqual([]);

    // Another key: other values.
    const otherKey = await config({ rules: RULES, key: 'another-key-entirely-0002' });
    const other = await copied({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target2,
      anonymize_config_id: otherKey,
    });
    expect(other.error).toBeNull();
    const otherRows = await customers('pg_target2');
    expect(otherRows.filter((r, i) => r.email === pgRows[i]!.email)).toEqual([]);
  });

  it('strict mode refuses a copy while personal columns of the source are uncovered (409 naming them), and writes nothing', async () => {
    const strict = await config({
      rules: [{ table: 'customer', column: 'email', transformer: 'fake', options: { kind: 'email' } }],
      strict: true,
    });
    const before = await customers('pg_target');
    const answer = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      anonymize_config_id: strict,
    });
    expect(answer.status).toBe(409);
    expect(answer.body.detail).toMatch(/Strict mode.*public\.customer\.name.*public\.customer\.phone/);
    expect(answer.body.detail).not.toMatch(/customer\.email/);
    expect(await customers('pg_target')).toEqual(before);
    // Covered, the same strict config copies.
    const covered = await config({ rules: RULES, strict: true });
    const run = await copied({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      anonymize_config_id: covered,
    });
    expect(run.error).toBeNull();
  });

  it('refuses an unknown config or one of another project (404) and rules that do not fit the source (422 naming them)', async () => {
    const base = { source_connection_id: ids.pg_source, target_connection_id: ids.pg_target };
    const unknown = await bridge({ ...base, anonymize_config_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Anonymization config not found');

    const elsewhere = (await suite.owner.post(`${API}/projects`, { name: 'Elsewhere anon' })).body
      .id as string;
    const theirConnection = await suite.owner.post(
      `${API}/connections`,
      connectionBody(elsewhere, urls.pg_source!, { name: 'elsewhere source' }),
    );
    const theirs = await suite.owner.post(`${API}/anonymize/configs`, {
      project_id: elsewhere,
      connection_id: theirConnection.body.id,
      name: 'theirs',
      rules: RULES,
    });
    expect(theirs.status).toBe(201);
    expect((await bridge({ ...base, anonymize_config_id: theirs.body.id })).status).toBe(404);

    // A config of another connection of the project, whose table the source lacks.
    await database('pg_people', engines.postgresql, 'create table people (id int primary key, mail text);');
    const people = await suite.owner.post(`${API}/anonymize/configs`, {
      project_id: suite.projectId,
      connection_id: ids.pg_people,
      name: 'people',
      rules: [{ table: 'people', column: 'mail', transformer: 'null' }],
    });
    expect(people.status).toBe(201);
    const mismatch = await bridge({ ...base, anonymize_config_id: people.body.id });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.detail[0]).toMatchObject({
      loc: ['body', 'anonymize_config_id'],
      msg: expect.stringMatching(/rule 0 \(.*people\.mail\) does not match the source/),
    });
  });

  it('binds the approval to the config: a config whose key changed after the request fails the run, writing nothing', async () => {
    await database('pg_prod', engines.postgresql, PG_SCHEMA, 'production');
    const bound = await config({ rules: RULES, key: 'bound-key-0123456789' });
    const started = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_prod,
      anonymize_config_id: bound,
    });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('awaiting_approval');
    const first = await suite.owner.get(`${API}/approvals/${started.body.approval_id}`);
    expect(
      (await suite.owner.patch(`${API}/anonymize/configs/${bound}`, { key: 'replaced-key-0123456789' }))
        .status,
    ).toBe(200);
    const admin = await suite.t.createUser(suite.orgId, 'member');
    await suite.owner.post(`${API}/projects/${suite.projectId}/members`, {
      user_id: admin.user.id,
      role: 'admin',
    });
    const approved = await admin.patch(`${API}/approvals/${started.body.approval_id}`, {
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    const run = await waitForRun(suite.owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/config \(its rules or key\) changed since.*nothing was written/);
    expect(await pg('pg_prod', 'select count(*)::int as n from customer')).toEqual([{ n: 0 }]);
    // Asked again, the request binds the new key: another content hash to approve.
    const again = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_prod,
      anonymize_config_id: bound,
    });
    expect(again.status).toBe(202);
    const second = await suite.owner.get(`${API}/approvals/${again.body.approval_id}`);
    expect(second.body.content_hash).not.toBe(first.body.content_hash);
  });
});
