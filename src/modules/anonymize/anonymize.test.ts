// Anonymization configs end to end on the real PostgreSQL and MariaDB test servers: rules checked
// against the live schema (422 naming what is wrong), the key sealed and never returned, foreign-key
// propagation, the PII scan and the preview (nothing written), and who may do what.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, SECRET_KEY, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { decodeRow, encodeRow } from '../../engine/rows/copy-text.ts';
import { createSecretBox } from '../../security/secret-box.ts';
import { findConfigById } from './anonymize.repo.ts';
import { configBinding, createBridgeAnonymizer } from './bridge-transforms.ts';
import { openKey } from './config-key.ts';

const API = '/api/v1';
const BASE = `${API}/anonymize/configs`;
const engines = await targetEngines('anonymization configs (anonymize.test.ts)');

const ROWS =
  'insert into customers (id, email, full_name, phone, born, notes, misc, score) values ' +
  "(1, 'ada@lovelace.org', 'Ada Lovelace', '+44 20 7946 0018', '1815-12-10', 'Call back on +44 20 7946 0018 after lunch', 'ada@lovelace.org', 3), " +
  "(2, 'bob@builder.net', 'Bob Builder', '+49 151 2345 6789', '1990-05-01', 'nothing to add', 'bob@builder.net', 5), " +
  "(3, 'cy@cyborg.io', 'Cy Borg', '+33 1 42 68 53 00', '2001-09-09', null, 'cy@cyborg.io', 7); " +
  "insert into orders (id, customer_email, total) values (10, 'ada@lovelace.org', 12.50), (11, 'bob@builder.net', 3.99);";

const ENGINES = [
  {
    ...engines.postgresql,
    checksum: "select md5(string_agg(c::text, ',' order by id)) as sum from customers c",
    schema:
      'create table customers (id bigint primary key, email varchar(120) not null unique, full_name text, ' +
      'phone text, born date, notes text, misc text, score integer, ' +
      'upper_name text generated always as (upper(full_name)) stored); ' +
      'create table orders (id bigint primary key, customer_email varchar(200) references customers(email), total numeric(10,2)); ' +
      'create table short_refs (id int primary key, email varchar(30) references customers(email)); ' +
      'create table loose (message text); ' +
      `create table "odd ""t""" (id int primary key, "e-mail addr" text); insert into "odd ""t""" values (1, 'x@y.org'); ` +
      ROWS,
  },
  {
    ...engines.mysql,
    checksum:
      "select md5(group_concat(concat_ws(':', id, email, full_name, phone, born, coalesce(notes, '-'), misc) order by id)) as sum from customers",
    schema:
      'create table customers (id bigint primary key, email varchar(120) not null unique, full_name text, ' +
      'phone text, born date, notes text, misc text, score int, ' +
      'upper_name varchar(200) as (upper(full_name)) stored); ' +
      'create table orders (id bigint primary key, customer_email varchar(200), total decimal(10,2), ' +
      'foreign key (customer_email) references customers(email)); ' +
      'create table short_refs (id int primary key, email varchar(30), foreign key (email) references customers(email)); ' +
      'create table loose (message text); ' +
      'create table `odd "t"` (id int primary key, `e-mail addr` text); insert into `odd "t"` values (1, \'x@y.org\'); ' +
      ROWS,
  },
];

describe('anonymization configs', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Anon'));
    projectId = (await owner.post(`${API}/projects`, { name: 'Anonymize' })).body.id;
  });
  afterAll(async () => {
    await t?.close();
    for (const database of databases) await database.drop();
  });

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let connectionId: string;
      let url: string;
      let configId: string;
      const table = (name: string) => (engine.dialect === 'postgresql' ? `public.${name}` : name);

      beforeAll(async () => {
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(url, engine.schema);
        const connection = await owner.post(`${API}/connections`, connectionBody(projectId, url));
        expect(connection.status).toBe(201);
        connectionId = connection.body.id;
      });

      const create = (rules: unknown[], extra: Record<string, unknown> = {}) =>
        owner.post(BASE, {
          project_id: projectId,
          connection_id: connectionId,
          name: `cfg-${Math.random().toString(36).slice(2)}`,
          rules,
          ...extra,
        });

      it('saves rules, seals a generated key it never returns, and propagates a key rule along foreign keys', async () => {
        const created = await create([
          { table: 'customers', column: 'full_name', transformer: 'fake', options: { kind: 'full_name' } },
          { table: 'customers', column: 'phone', transformer: 'mask', options: { keep_end: 2 } },
        ]);
        expect(created.status).toBe(201);
        configId = created.body.id;
        expect(created.body).toMatchObject({
          project_id: projectId,
          connection_id: connectionId,
          strict: false,
          has_key: true,
          propagated: [],
          rules: [
            {
              table: table('customers'),
              column: 'full_name',
              transformer: 'fake',
              options: { kind: 'full_name' },
            },
            { table: table('customers'), column: 'phone', transformer: 'mask', options: { keep_end: 2 } },
          ],
        });
        expect(JSON.stringify(created.body)).not.toMatch(/key_sealed|key_id/);
        const row = await t.store.db
          .selectFrom('anonymize_configs')
          .selectAll()
          .where('id', '=', configId)
          .executeTakeFirstOrThrow();
        expect(openKey(createSecretBox(SECRET_KEY), configId, row.key_sealed).length).toBeGreaterThanOrEqual(
          32,
        );
        const audit = await t.store.db
          .selectFrom('audit_log')
          .select(['action', 'details'])
          .where('target_id', '=', configId)
          .execute();
        expect(audit).toEqual([
          {
            action: 'anonymize_config.create',
            details: expect.objectContaining({ rules: 2, key_generated: true }),
          },
        ]);

        const given = 'a-key-the-caller-chose-0123456789';
        const withKey = await create(
          [{ table: 'customers', column: 'email', transformer: 'fake', options: { kind: 'email' } }],
          { key: given },
        );
        // short_refs.email (varchar(30)) cannot hold what the rule writes into customers.email (varchar(120)).
        expect(withKey.status).toBe(422);
        expect(withKey.body.detail[0]).toMatchObject({
          loc: ['body', 'rules', 0, 'transformer'],
          type: 'referencing_column_mismatch',
        });
        expect(withKey.body.detail[0].msg).toMatch(/short_refs.email references .*customers.email/);
        const hashed = await create(
          [{ table: 'customers', column: 'email', transformer: 'hash', options: { length: 24 } }],
          {
            key: given,
          },
        );
        expect(hashed.status).toBe(201);
        expect(hashed.body.propagated).toEqual(
          expect.arrayContaining([
            {
              table: table('orders'),
              column: 'customer_email',
              from: { table: table('customers'), column: 'email' },
              via: expect.any(String),
            },
            {
              table: table('short_refs'),
              column: 'email',
              from: { table: table('customers'), column: 'email' },
              via: expect.any(String),
            },
          ]),
        );
        const stored = await t.store.db
          .selectFrom('anonymize_configs')
          .select('key_sealed')
          .where('id', '=', hashed.body.id)
          .executeTakeFirstOrThrow();
        expect(stored.key_sealed).not.toContain(given);
        expect(openKey(createSecretBox(SECRET_KEY), hashed.body.id, stored.key_sealed).toString()).toBe(
          given,
        );
      });

      it('refuses with 422 naming unknown tables, columns, transformers, misfits, generated columns and keyless tables', async () => {
        const cases: [unknown, (string | number)[], RegExp][] = [
          [
            { table: 'clients', column: 'x', transformer: 'null' },
            ['body', 'rules', 0, 'table'],
            /Unknown table clients/,
          ],
          [
            { table: 'customers', column: 'mail', transformer: 'null' },
            ['body', 'rules', 0, 'column'],
            /Unknown column .*customers.mail/,
          ],
          [
            { table: 'customers', column: 'notes', transformer: 'tokenize' },
            ['body', 'rules', 0, 'transformer'],
            /Unknown transformer "tokenize"/,
          ],
          [
            { table: 'customers', column: 'born', transformer: 'mask' },
            ['body', 'rules', 0, 'transformer'],
            /mask does not fit a date column/,
          ],
          [
            { table: 'customers', column: 'email', transformer: 'null' },
            ['body', 'rules', 0, 'transformer'],
            /NOT NULL/,
          ],
          [
            { table: 'customers', column: 'score', transformer: 'noise', options: { ratio: 0 } },
            ['body', 'rules', 0, 'options', 'ratio'],
            /greater than 0/,
          ],
          [
            { table: 'customers', column: 'upper_name', transformer: 'null' },
            ['body', 'rules', 0, 'column'],
            /generated column/,
          ],
          [
            { table: 'loose', column: 'message', transformer: 'redact' },
            ['body', 'rules', 0, 'table'],
            /no primary key/,
          ],
        ];
        for (const [rule, loc, msg] of cases) {
          const response = await create([rule]);
          expect(response.status, JSON.stringify(rule)).toBe(422);
          expect(response.body.detail[0].loc).toEqual(loc);
          expect(response.body.detail[0].msg).toMatch(msg);
        }
        const unknownBody = await owner.post(BASE, {
          project_id: projectId,
          connection_id: connectionId,
          name: 'x',
          rules: [],
          extra: 1,
        });
        expect(unknownBody.status).toBe(422);
        const count = await t.store.db
          .selectFrom('anonymize_configs')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('connection_id', '=', connectionId)
          .executeTakeFirstOrThrow();
        expect(Number(count.n)).toBe(2);
      });

      it('lists, reads, edits (rules checked again, key replaced) and deletes; a duplicate name is 409', async () => {
        const listed = await owner.get(`${BASE}?project_id=${projectId}`);
        expect(listed.status).toBe(200);
        expect(listed.body.items.map((c: { id: string }) => c.id)).toContain(configId);
        const one = await owner.get(`${BASE}/${configId}`);
        expect(one.body.name).toEqual(expect.any(String));

        const bad = await owner.patch(`${BASE}/${configId}`, {
          rules: [{ table: 'customers', column: 'nope', transformer: 'null' }],
        });
        expect(bad.status).toBe(422);
        const before = (await owner.get(`${BASE}/${configId}`)).body;
        expect(before.rules).toHaveLength(2);

        const sealedBefore = (
          await t.store.db
            .selectFrom('anonymize_configs')
            .select('key_sealed')
            .where('id', '=', configId)
            .executeTakeFirstOrThrow()
        ).key_sealed;
        const edited = await owner.patch(`${BASE}/${configId}`, {
          name: 'Renamed',
          strict: true,
          key: 'another-key-of-sixteen-or-more',
          rules: [{ table: 'customers', column: 'notes', transformer: 'redact' }],
        });
        expect(edited.status).toBe(200);
        expect(edited.body).toMatchObject({
          name: 'Renamed',
          strict: true,
          rules: [{ column: 'notes', transformer: 'redact' }],
        });
        const sealedAfter = (
          await t.store.db
            .selectFrom('anonymize_configs')
            .select('key_sealed')
            .where('id', '=', configId)
            .executeTakeFirstOrThrow()
        ).key_sealed;
        expect(openKey(createSecretBox(SECRET_KEY), configId, sealedAfter).toString()).toBe(
          'another-key-of-sixteen-or-more',
        );
        expect(sealedAfter).not.toBe(sealedBefore);

        const duplicate = await create([], { name: 'Renamed' });
        expect(duplicate.status).toBe(409);

        const doomed = (await create([])).body.id;
        expect((await owner.delete(`${BASE}/${doomed}`)).status).toBe(204);
        expect((await owner.get(`${BASE}/${doomed}`)).status).toBe(404);
        const actions = await t.store.db
          .selectFrom('audit_log')
          .select('action')
          .where('target_id', 'in', [configId, doomed])
          .execute();
        expect(actions.map((a) => a.action).sort()).toEqual([
          'anonymize_config.create',
          'anonymize_config.create',
          'anonymize_config.delete',
          'anonymize_config.update',
        ]);
      });

      it('scans for personal columns by name and by sampled values, saying which a rule covers', async () => {
        const scan = await owner.get(`${BASE}/${configId}/pii-scan`);
        expect(scan.status).toBe(200);
        const found = Object.fromEntries(
          scan.body.columns.map((c: Record<string, unknown>) => [
            `${c.table}.${c.column}`,
            [c.category, c.evidence, c.covered],
          ]),
        );
        expect(found).toMatchObject({
          [`${table('customers')}.email`]: ['email', 'name', false],
          [`${table('customers')}.full_name`]: ['person_name', 'name', false],
          [`${table('customers')}.phone`]: ['phone', 'name', false],
          [`${table('customers')}.born`]: ['birth_date', 'name', false],
          [`${table('customers')}.notes`]: ['free_text', 'name', true],
          [`${table('customers')}.misc`]: ['email', 'values', false],
          [`${table('orders')}.customer_email`]: ['email', 'name', false],
        });
        expect(found[`${table('customers')}.score`]).toBeUndefined();
        expect(JSON.stringify(scan.body)).not.toContain('lovelace');
      });

      it('previews before and after with the config key, writing nothing; one key gives one output, another key another', async () => {
        const sum = async () => (await engine.query(url, engine.checksum))[0];
        const checksum = await sum();
        const rules = [
          { table: 'customers', column: 'misc', transformer: 'fake', options: { kind: 'email' } },
          { table: 'customers', column: 'phone', transformer: 'scramble' },
          { table: 'customers', column: 'born', transformer: 'generalize', options: { unit: 'year' } },
          { table: 'customers', column: 'score', transformer: 'shuffle' },
        ];
        const a = (await create(rules, { key: 'first-key-0123456789' })).body.id;
        const b = (await create(rules, { key: 'first-key-0123456789' })).body.id;
        const c = (await create(rules, { key: 'second-key-0123456789' })).body.id;
        const preview = await owner.post(`${BASE}/${a}/preview`, { rows: 5 });
        expect(preview.status).toBe(200);
        const [misc, phone, born, score] = preview.body.samples;
        expect(misc.before).toEqual(
          expect.arrayContaining(['ada@lovelace.org', 'bob@builder.net', 'cy@cyborg.io']),
        );
        for (const after of misc.after) expect(after).toMatch(/@example\.net$/);
        expect(phone.after.map((p: string) => p.replace(/\d/g, '#'))).toEqual(
          phone.before.map((p: string) => p.replace(/\d/g, '#')),
        );
        expect(phone.after).not.toEqual(phone.before);
        for (const year of born.after) expect(String(year)).toMatch(/^\d{4}-01-01/);
        expect([...score.after].sort()).toEqual([...score.before].sort());
        expect((await owner.post(`${BASE}/${b}/preview`, { rows: 5 })).body.samples).toEqual(
          preview.body.samples,
        );
        const other = (await owner.post(`${BASE}/${c}/preview`, { rows: 5 })).body.samples;
        expect(other[0].after).not.toEqual(misc.after);
        expect(await sum()).toEqual(checksum);
      });

      it('quotes identifiers through the dialect: a table and a column with quotes, spaces and dashes', async () => {
        const created = await create([
          { table: 'odd "t"', column: 'e-mail addr', transformer: 'fake', options: { kind: 'email' } },
        ]);
        expect(created.status).toBe(201);
        const scan = await owner.get(`${BASE}/${created.body.id}/pii-scan`);
        expect(scan.body.columns).toContainEqual({
          table: table('odd "t"'),
          column: 'e-mail addr',
          category: 'email',
          evidence: 'name',
          covered: true,
        });
        const preview = await owner.post(`${BASE}/${created.body.id}/preview`, {});
        expect(preview.status).toBe(200);
        expect(preview.body.samples).toEqual([
          {
            table: table('odd "t"'),
            column: 'e-mail addr',
            before: ['x@y.org'],
            after: [expect.stringMatching(/@example\.net$/)],
          },
        ]);
      });

      it('compiles a config for the bridge against a source schema: batch transforms keyed by table, a run refused when a rule does not match or the config changed', async () => {
        const created = await create(
          [{ table: 'customers', column: 'email', transformer: 'hash', options: { length: 24 } }],
          { key: 'bridge-key-0123456789' },
        );
        expect(created.status).toBe(201);
        const connection = (await t.composition.connections.findById(connectionId))!;
        const model = await t.composition.connections.introspect(connection);
        const stored = (await findConfigById(t.store.db, created.body.id))!;
        const anonymizer = createBridgeAnonymizer(t.composition);
        const inFlight = await anonymizer.open(created.body.id, configBinding(stored), model);
        // Rows through a table's transform as the bridge streams them (batches, on the worker threads).
        const through = async (name: string, columns: string[], rows: string[][]) => {
          const out: string[][] = [];
          async function* batches() {
            yield { data: Buffer.from(rows.map(encodeRow).join('')), rows: rows.length };
          }
          for await (const batch of inFlight.forTable(name, columns)!(batches()))
            for (const line of batch.data.toString('utf8').split('\n').slice(0, -1))
              out.push(decodeRow(line) as string[]);
          return out;
        };
        const [customer] = await through(
          table('customers'),
          ['id', 'email', 'full_name'],
          [['1', 'ada@lovelace.org', 'Ada']],
        );
        expect(customer![1]).toMatch(/^[0-9a-f]{24}$/);
        expect(customer!.slice(0, 1).concat(customer!.slice(2))).toEqual(['1', 'Ada']);
        const [order] = await through(
          table('orders'),
          ['id', 'customer_email'],
          [['10', 'ada@lovelace.org']],
        );
        expect(order![1]).toBe(customer![1]);
        expect(inFlight.forTable(table('customers'), ['id', 'full_name'])).toBeNull();
        await inFlight.close();

        const smaller = {
          ...model,
          tables: model.tables.map((t) =>
            t.name === 'customers' ? { ...t, columns: t.columns.filter((c) => c.name !== 'email') } : t,
          ),
        };
        await expect(anonymizer.open(created.body.id, configBinding(stored), smaller)).rejects.toThrow(
          /rule 0 \(.*customers\.email\) does not match the source: Unknown column .*email.*nothing was written/,
        );
        await expect(anonymizer.open(created.body.id, 'stale', model)).rejects.toThrow(/changed since/);
      });

      it('answers 401 without credentials, 403 to a role or scope too low, 404 to another organization', async () => {
        const one = `${BASE}/${configId}`;
        const routes: [string, string, unknown?][] = [
          ['GET', `${BASE}?project_id=${projectId}`],
          ['GET', one],
          ['GET', `${one}/pii-scan`],
          ['POST', BASE, { project_id: projectId, connection_id: connectionId, name: 'x', rules: [] }],
          ['PATCH', one, { name: `renamed on ${engine.name}` }],
          ['POST', `${one}/preview`, {}],
          ['DELETE', one],
        ];
        for (const [method, route, body] of routes)
          expect((await t.anonymous.request(method as 'GET', route, body)).status, `${method} ${route}`).toBe(
            401,
          );

        const viewer = await t.createUser(orgId, 'member');
        await owner.post(`${API}/projects/${projectId}/members`, { user_id: viewer.user.id, role: 'viewer' });
        const developer = await t.createUser(orgId, 'member');
        await owner.post(`${API}/projects/${projectId}/members`, {
          user_id: developer.user.id,
          role: 'developer',
        });
        const expectations: [Client, number[]][] = [
          // GET list, GET one, scan, create, edit, preview, delete
          [viewer, [200, 200, 200, 403, 403, 403, 403]],
          [await t.keyClient(owner, ['read']), [200, 200, 200, 403, 403, 403, 403]],
          // A write key may create, edit and preview, but a DELETE needs the admin scope.
          [await t.keyClient(developer, ['write']), [200, 200, 200, 201, 200, 200, 403]],
          [(await t.createOrg(`Other ${engine.name}`)).owner, [404, 404, 404, 404, 404, 404, 404]],
        ];
        for (const [client, statuses] of expectations) {
          const got: number[] = [];
          for (const [method, route, body] of routes) {
            const named =
              method === 'POST' && route === BASE
                ? { ...(body as object), name: `x-${Math.random()}` }
                : body;
            got.push((await client.request(method as 'GET', route, named)).status);
          }
          expect(got).toEqual(statuses);
        }
      });
    });
  }
});
