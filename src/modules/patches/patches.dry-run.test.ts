// A patch's dry-run changes nothing and a patch never reaches outside the database, on the real
// PostgreSQL and MariaDB test servers: a fingerprint of every table and every sequence (PostgreSQL
// `last_value, is_called`; MariaDB AUTO_INCREMENT and sequences) is the same before and after each
// dry-run; the attacks that once worked (a MyISAM table, setval in a WHERE, pg_read_file, a routine
// running a program) are refused; later statements see what earlier ones did; violations a read
// can see are still 422 `statement_failed`.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { type TargetEngine, targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('patch dry-runs (patches.dry-run.test.ts)');

/** Every table's rows and every sequence's position, as one comparable value. */
async function fingerprint(engine: TargetEngine, url: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (engine.dialect === 'postgresql') {
    for (const { name } of await engine.query(
      url,
      "select quote_ident(table_name) as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    ))
      out[`table ${name}`] = (
        await engine.query(
          url,
          `select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as sum from ${name} t`,
        )
      )[0]?.sum;
    for (const { name } of await engine.query(
      url,
      "select quote_ident(sequence_name) as name from information_schema.sequences where sequence_schema = 'public'",
    ))
      out[`sequence ${name}`] = (
        await engine.query(url, `select last_value::text, is_called from ${name}`)
      )[0];
  } else {
    for (const row of await engine.query(
      url,
      'select table_name as name, table_type as type, auto_increment as ai from information_schema.tables where table_schema = database()',
    )) {
      out[`auto_increment ${row.name}`] = row.ai;
      out[`table ${row.name}`] =
        row.type === 'SEQUENCE'
          ? (await engine.query(url, `select * from \`${row.name}\``))[0]
          : (await engine.query(url, `checksum table \`${row.name}\` extended`))[0]?.Checksum;
    }
  }
  return out;
}

const SCHEMAS = {
  postgresql: `
    create table people (id bigint primary key, name text not null, score integer check (score >= 0));
    insert into people values (1, 'Ada', 3), (2, 'Bob', 5), (3, 'Cy', 7);
    create table customers (id serial primary key, name text not null, email text unique);
    insert into customers (name, email) values ('Ann', 'ann@example.com'), ('Ben', 'ben@example.com');
    create table audit_log (id serial primary key, note text);
    create function log_customer() returns trigger language plpgsql as $$
      begin insert into audit_log (note) values (new.name); return new; end $$;
    create trigger customers_log after insert on customers for each row execute function log_customer();
    create function stamp() returns integer language plpgsql as $$
      begin execute 'copy (select 1) to program ''touch ' || current_setting('dbops.touch', true) || ''''; return 1; end $$;
  `,
  mysql: `
    create table people (id int primary key, name varchar(100) not null, score int check (score >= 0));
    insert into people values (1, 'Ada', 3), (2, 'Bob', 5), (3, 'Cy', 7);
    create table customers (id int auto_increment primary key, name varchar(100) not null, email varchar(100) unique);
    insert into customers (name, email) values ('Ann', 'ann@example.com'), ('Ben', 'ben@example.com');
    create table audit_log (id int auto_increment primary key, note varchar(100));
    create trigger customers_log after insert on customers for each row insert into audit_log (note) values (new.name);
    create table acct (id int primary key, balance int) engine=MyISAM;
    insert into acct values (1, 10);
    create table ledger (id int primary key, balance int) engine=InnoDB;
    insert into ledger values (1, 10);
    create sequence ticket_seq;
  `,
};

describe('patch dry-runs change nothing; patches never reach outside the database', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Acme', project: 'Dry runs' }));
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
        await engine.load(url, SCHEMAS[engine.dialect]);
        const connection = await owner.post(
          `${API}/connections`,
          connectionBody(projectId, url, { name: `${engine.name} dry runs` }),
        );
        expect(connection.status).toBe(201);
        connectionId = connection.body.id;
      });

      const create = (sql: string) =>
        owner.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'Dry',
          sql,
        });
      /** Dry-runs `sql` and checks that nothing at all changed. */
      const dryRun = async (sql: string) => {
        const created = await create(sql);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const before = await fingerprint(engine, url);
        const dry = await owner.post(`${API}/patches/${created.body.id}/dry-run`);
        expect(await fingerprint(engine, url)).toEqual(before);
        return dry;
      };

      it('shows an INSERT into a table with a generated key and a trigger without moving anything', async () => {
        const dry = await dryRun(
          "INSERT INTO customers (name, email) VALUES ('Cid', 'cid@example.com'), ('Dot', 'dot@example.com')",
        );
        expect(dry.status, JSON.stringify(dry.body)).toBe(200);
        const [insert] = dry.body.statements;
        expect(insert.affected_rows).toBe(2);
        expect(insert.sample_before).toEqual([]);
        expect(insert.sample_after).toEqual([
          { id: null, name: 'Cid', email: 'cid@example.com' },
          { id: null, name: 'Dot', email: 'dot@example.com' },
        ]);
        const notes = dry.body.notes
          .map((n: { statement_index: number; text: string }) => n.text)
          .join(' | ');
        expect(dry.body.notes.every((n: { statement_index: number }) => n.statement_index === 0)).toBe(true);
        expect(notes).toMatch(/customers\.id is numbered by the server on write/);
        expect(notes).toMatch(/Triggers on customers \(customers_log\)/);
      });

      it('computes each statement over what the earlier ones left', async () => {
        const insertThenUpdate = await dryRun(
          "INSERT INTO people (id, name, score) VALUES (10, 'Eve', 1); UPDATE people SET score = score + 100 WHERE id = 10 OR id = 1",
        );
        expect(insertThenUpdate.status, JSON.stringify(insertThenUpdate.body)).toBe(200);
        const [, update] = insertThenUpdate.body.statements;
        expect(update.affected_rows).toBe(2);
        const byId = (rows: { id: unknown; score: unknown }[]) =>
          Object.fromEntries(rows.map((r) => [Number(r.id), Number(r.score)]));
        expect(byId(update.sample_before)).toEqual({ 1: 3, 10: 1 });
        expect(byId(update.sample_after)).toEqual({ 1: 103, 10: 101 });
        expect(insertThenUpdate.body.total_affected_rows).toBe(3);

        const updateThenDelete = await dryRun(
          "UPDATE people SET score = 50 WHERE id IN (1, 2); DELETE FROM people WHERE score = 50 OR name = 'Cy'",
        );
        expect(updateThenDelete.status).toBe(200);
        const [, del] = updateThenDelete.body.statements;
        expect(del.affected_rows).toBe(3);
        expect(byId(del.sample_before)).toEqual({ 1: 50, 2: 50, 3: 7 });
        expect(del.sample_after).toEqual([]);

        const deleteThenInsert = await dryRun(
          'DELETE FROM people WHERE id = 3; INSERT INTO people (id, name) SELECT id + 100, name FROM people WHERE id >= 2',
        );
        expect(deleteThenInsert.status).toBe(200);
        expect(deleteThenInsert.body.statements[1].affected_rows).toBe(1);
        const [inserted] = deleteThenInsert.body.statements[1].sample_after;
        expect({ ...inserted, id: Number(inserted.id) }).toEqual({ id: 102, name: 'Bob', score: null });
      });

      it('still answers NOT NULL, CHECK and unique violations with 422 statement_failed', async () => {
        for (const sql of [
          'UPDATE people SET name = NULL WHERE id = 1',
          'UPDATE people SET score = -1 WHERE id = 2',
          "INSERT INTO people (id, name) VALUES (1, 'Twin')",
          "INSERT INTO people (id, name) VALUES (20, 'A'); INSERT INTO people (id, name) VALUES (20, 'B')",
          "UPDATE customers SET email = 'ann@example.com' WHERE name = 'Ben'",
        ]) {
          const dry = await dryRun(sql);
          expect(dry.status, sql).toBe(422);
          expect(dry.body.detail[0].type, sql).toBe('statement_failed');
        }
      });

      it('refuses sequence moves at create, and nothing moves', async () => {
        const before = await fingerprint(engine, url);
        const sql =
          engine.dialect === 'postgresql'
            ? "UPDATE customers SET name = 'x' WHERE id = 1 AND setval('customers_id_seq', 777777) > 0"
            : "UPDATE customers SET name = 'x' WHERE id = 1 AND NEXTVAL(ticket_seq) > 0";
        const created = await create(sql);
        expect(created.status).toBe(422);
        expect(created.body.detail[0]).toMatchObject({ loc: ['body', 'sql'], type: 'sequence_move' });
        expect(created.body.detail[0].msg).toMatch(/Statement 1 calls (setval|nextval)/);
        expect(await fingerprint(engine, url)).toEqual(before);
      });

      it('refuses calls that read server files at create', async () => {
        const sql =
          engine.dialect === 'postgresql'
            ? `UPDATE customers SET name = pg_catalog."pg_read_file"('/etc/hostname') WHERE id = 1`
            : "UPDATE customers SET name = LOAD_FILE('/etc/hostname') WHERE id = 1";
        const created = await create(`UPDATE people SET score = 1 WHERE id = 1; ${sql}`);
        expect(created.status).toBe(422);
        expect(created.body.detail[0].type).toBe('outside_database');
        expect(created.body.detail[0].msg).toMatch(
          /Statement 2 calls (pg_read_file|load_file) \(reads a server file\)/,
        );
      });

      if (engine.dialect === 'postgresql')
        it('refuses a statement calling a routine that runs a program, and no file appears', async () => {
          const path = `/tmp/dbops-dry-run-${randomUUID()}`;
          await engine.query(url, `alter database "${url.split('/').pop()}" set dbops.touch = '${path}'`);
          const created = await create("UPDATE customers SET name = 'x' WHERE id = 1 AND stamp() = 1");
          expect(created.status).toBe(422);
          expect(created.body.detail[0].msg).toMatch(
            /Statement 1 runs the function stamp, which calls copy … program/,
          );
          expect(existsSync(path)).toBe(false);
        });

      if (engine.dialect === 'mysql') {
        it('refuses a MyISAM table at create, naming the table and its engine', async () => {
          const before = await fingerprint(engine, url);
          const created = await create('UPDATE acct SET balance = 999999 WHERE id = 1');
          expect(created.status).toBe(422);
          expect(created.body.detail[0]).toMatchObject({ type: 'non_transactional_table' });
          expect(created.body.detail[0].msg).toMatch(
            /Statement 1 writes acct, whose engine MyISAM keeps no transaction/,
          );
          expect(await fingerprint(engine, url)).toEqual(before);
        });

        it('refuses a table turned MyISAM after create at dry-run and at execute, changing nothing', async () => {
          const created = await create('UPDATE ledger SET balance = 999999 WHERE id = 1');
          expect(created.status).toBe(201);
          await engine.query(url, 'alter table ledger engine=MyISAM');
          const before = await fingerprint(engine, url);
          const dry = await owner.post(`${API}/patches/${created.body.id}/dry-run`);
          expect(dry.status).toBe(422);
          expect(dry.body.detail[0].msg).toMatch(/ledger, whose engine MyISAM/);
          const started = await owner.post(`${API}/patches/${created.body.id}/execute`, {});
          expect(started.status).toBe(202);
          const run = await waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
          expect(run.status).toBe('failed');
          expect(run.error).toMatch(/ledger, whose engine MyISAM keeps no transaction.*nothing was changed/);
          expect(await fingerprint(engine, url)).toEqual(before);
          expect((await engine.query(url, 'select balance from ledger'))[0]?.balance).toBe(10);
        });
      }
    });
  }
});
