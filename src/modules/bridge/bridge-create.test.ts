// create_tables with the keys built after the load (bridge-create.ts, keysAroundLoad): the created
// tables end with the same primary keys, unique constraints and indexes as the source, on
// PostgreSQL from PostgreSQL (models compared) and from MariaDB (catalog read back); and a load
// that fails leaves a created table with every key it was created with.
import { describe, expect, it } from 'vitest';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';

const engines = await targetEngines('bridge create_tables keys (bridge-create.test.ts)');
const up = engines.postgresql.up && engines.mysql.up;

const PG_SOURCE = `
  create table author (id int primary key, email text not null unique, name text, born date);
  create index author_name on author (name);
  create table book (isbn text not null, edition int not null, author_id int not null references author (id),
    title text, primary key (isbn, edition), constraint book_title_once unique (author_id, title));
  create index book_lower_title on book (lower(title));
  insert into author select i, 'a' || i || '@example.com', 'name ' || (i % 7), date '1950-01-01' + i
    from generate_series(1, 500) i;
  insert into book select 'isbn-' || i, 1 + i % 3, 1 + i % 500, 'title ' || i from generate_series(1, 2000) i;
`;
const MY_SOURCE = `
  create table author (id int primary key, email varchar(100) not null, name varchar(100), born datetime,
    unique key author_email (email), key author_name (name));
  create table book (isbn varchar(20) not null, edition int not null, author_id int not null, title varchar(100),
    primary key (isbn, edition), unique key book_title_once (author_id, title), key book_title (title),
    constraint book_author foreign key (author_id) references author (id));
  insert into author select seq, concat('a', seq, '@example.com'), concat('name ', seq % 7), '1950-01-01' + interval seq day
    from seq_1_to_500;
  insert into book select concat('isbn-', seq), 1 + seq % 3, 1 + seq % 500, concat('title ', seq) from seq_1_to_2000;
`;

const KEYS_SQL = `
  select c.relname as table, con.conname as name, con.contype as type, pg_get_constraintdef(con.oid) as def,
    con.convalidated as valid
  from pg_constraint con join pg_class c on c.oid = con.conrelid
  where c.relnamespace = 'public'::regnamespace and con.contype in ('p', 'u', 'f')
  union all
  select c.relname, i.relname, 'i', pg_get_indexdef(i.oid), ix.indisvalid
  from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class c on c.oid = ix.indrelid
  where c.relnamespace = 'public'::regnamespace
  order by 1, 2, 3`;

describe.skipIf(!up)('bridge create_tables: keys built after the load', () => {
  const suite = bridgeSuite({ org: 'Create org', project: 'Create' }, async ({ database }) => {
    await database('pg_source', engines.postgresql, PG_SOURCE);
    await database('pg_empty', engines.postgresql, 'select 1');
    await database('my_source', engines.mysql, MY_SOURCE);
    await database('pg_empty2', engines.postgresql, 'select 1');
    await database(
      'my_zero',
      engines.mysql,
      `set sql_mode = ''; ${MY_SOURCE} insert into author values (501, 'zero@example.com', 'zero', '0000-00-00 00:00:00');`,
    );
    await database('pg_empty3', engines.postgresql, 'select 1');
  });
  const { urls, ids, copied: copy } = suite;
  const keys = (name: string) => engines.postgresql.query(urls[name]!, KEYS_SQL);

  it('PostgreSQL → PostgreSQL: the same keys and indexes as the source, rows equal', async () => {
    const run = await copy({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_empty,
      create_tables: true,
    });
    expect(run.error).toBeNull();
    expect(await keys('pg_empty')).toEqual(await keys('pg_source'));
    for (const table of ['author', 'book'])
      expect(await tableChecksum(urls.pg_empty!, table)).toEqual(await tableChecksum(urls.pg_source!, table));
  });

  it('MariaDB → PostgreSQL: primary keys, unique keys, indexes and the foreign key, all valid', async () => {
    const run = await copy({
      source_connection_id: ids.my_source,
      target_connection_id: ids.pg_empty2,
      create_tables: true,
    });
    expect(run.error).toBeNull();
    const found = (await keys('pg_empty2')).map((k) => [
      k.table,
      k.type,
      String(k.def).replace(/ USING btree/, ''),
      k.valid,
    ]);
    // MySQL's unique keys are unique indexes there, and here (the documented mapping).
    expect(found).toEqual(
      expect.arrayContaining([
        ['author', 'p', 'PRIMARY KEY (id)', true],
        ['author', 'i', 'CREATE UNIQUE INDEX author_email ON public.author (email)', true],
        ['author', 'i', 'CREATE INDEX author_name ON public.author (name)', true],
        ['book', 'p', 'PRIMARY KEY (isbn, edition)', true],
        ['book', 'i', 'CREATE UNIQUE INDEX book_title_once ON public.book (author_id, title)', true],
        ['book', 'i', 'CREATE INDEX book_title ON public.book (title)', true],
        [
          'book',
          'f',
          'FOREIGN KEY (author_id) REFERENCES author(id) ON UPDATE RESTRICT ON DELETE RESTRICT',
          true,
        ],
      ]),
    );
    const [counts] = await engines.postgresql.query(
      urls.pg_empty2!,
      'select (select count(*)::int from author) as authors, (select count(*)::int from book) as books',
    );
    expect(counts).toEqual({ authors: 500, books: 2000 });
  });

  it('a load that fails leaves the created table with all its keys, and no rows', async () => {
    const run = await copy({
      source_connection_id: ids.my_zero,
      target_connection_id: ids.pg_empty3,
      create_tables: true,
    });
    expect(run.status).toBe('failed');
    expect(run.error).toContain('author');
    const defs = (await keys('pg_empty3')).filter((k) => k.table === 'author').map((k) => k.def);
    expect(defs).toEqual(
      expect.arrayContaining([
        'PRIMARY KEY (id)',
        'CREATE UNIQUE INDEX author_email ON public.author USING btree (email)',
        'CREATE INDEX author_name ON public.author USING btree (name)',
      ]),
    );
    const [count] = await engines.postgresql.query(urls.pg_empty3!, 'select count(*)::int as n from author');
    expect(count).toEqual({ n: 0 });
  });
});
