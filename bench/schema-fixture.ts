// The generated schema of the schema bench (bench/schema.ts): TABLES tables of 20 columns each, with
// varied types and defaults, a primary key on every table, foreign keys to earlier tables, two or
// three secondary indexes per table and a unique or check constraint here and there; rendered as DDL
// for PostgreSQL and for MySQL/MariaDB (the changes applied to it are in schema-changes.ts).
// Deterministic: the same size gives the same schema, so runs on different days compare.
import type { DialectName } from '../src/engine/schema/model.ts';

/** Everything a generated identifier can hold: [a-z0-9_], safe in both engines, quoted anyway. */
export type Quote = (name: string) => string;

interface ColumnSpec {
  name: string;
  /** The column definition after its name, per engine. */
  pg: string;
  mysql: string;
  /** Usable as a plain B-tree key part in both engines (no text, blob or json). */
  indexable: boolean;
}

interface ForeignKeySpec {
  name: string;
  column: string;
  references: string;
  onDelete: 'no action' | 'cascade' | 'set null' | 'restrict';
  onUpdate: 'no action' | 'cascade';
  /** PostgreSQL only: DEFERRABLE INITIALLY DEFERRED. */
  deferred: boolean;
}

interface IndexSpec {
  name: string;
  /** Key parts as written in CREATE INDEX. */
  keys: string[];
  /** PostgreSQL only: a partial index's predicate (a plain index on MySQL). */
  where?: string;
  /** PostgreSQL only (expression keys, which MariaDB cannot index). */
  pgOnly?: boolean;
}

export interface TableSpec {
  index: number;
  name: string;
  /** How `id` is generated on PostgreSQL (MySQL: always AUTO_INCREMENT). */
  id: 'bigserial' | 'identity always' | 'identity by default';
  columns: ColumnSpec[];
  comment: string | null;
  uniques: { name: string; columns: string[] }[];
  checks: { name: string; expression: string }[];
  foreignKeys: ForeignKeySpec[];
  indexes: IndexSpec[];
}

export const COLUMNS_PER_TABLE = 20;

const ENUMS = [
  ['low', 'mid', 'high'],
  ['draft', 'open', 'closed', 'archived'],
  ['red', 'green', 'blue'],
];

/** Columns every table has (7), around the id and the two foreign-key columns. */
const FIXED: ColumnSpec[] = [
  { name: 'name', pg: 'varchar(120) not null', mysql: 'varchar(120) not null', indexable: true },
  { name: 'email', pg: 'varchar(255)', mysql: 'varchar(255) null', indexable: true },
  {
    name: 'status',
    pg: "varchar(16) not null default 'new'",
    mysql: "varchar(16) not null default 'new'",
    indexable: true,
  },
  {
    name: 'created_at',
    pg: 'timestamp with time zone not null default now()',
    mysql: 'datetime not null default current_timestamp',
    indexable: true,
  },
];

/** The other 13 columns of a table: 13 consecutive entries of this palette, from an offset per table. */
function palette(table: number): ColumnSpec[] {
  const mood = ENUMS[table % ENUMS.length]!;
  return [
    { name: 'qty', pg: 'integer not null default 1', mysql: 'int not null default 1', indexable: true },
    {
      name: 'amount',
      pg: 'numeric(12,2) not null default 0',
      mysql: 'decimal(12,2) not null default 0',
      indexable: true,
    },
    { name: 'price', pg: 'numeric(10,4)', mysql: 'decimal(10,4) null', indexable: true },
    { name: 'small', pg: 'smallint default 0', mysql: 'smallint default 0', indexable: true },
    {
      name: 'big_count',
      pg: 'bigint not null default 0',
      mysql: 'bigint not null default 0',
      indexable: true,
    },
    { name: 'ratio', pg: 'double precision', mysql: 'double null', indexable: true },
    { name: 'score', pg: 'real default 0.5', mysql: 'float default 0.5', indexable: true },
    {
      name: 'active',
      pg: 'boolean not null default true',
      mysql: 'boolean not null default true',
      indexable: true,
    },
    { name: 'code', pg: 'char(8)', mysql: 'char(8) null', indexable: true },
    { name: 'tag', pg: "varchar(32) default 'none'", mysql: "varchar(32) default 'none'", indexable: true },
    { name: 'notes', pg: 'text', mysql: 'text null', indexable: false },
    { name: 'payload', pg: 'jsonb', mysql: 'json null', indexable: false },
    { name: 'born_on', pg: 'date', mysql: 'date null', indexable: true },
    {
      name: 'due_on',
      pg: 'date not null default current_date',
      mysql: 'date not null default (curdate())',
      indexable: true,
    },
    { name: 'updated_at', pg: 'timestamp(3) with time zone', mysql: 'datetime(3) null', indexable: true },
    { name: 'uid', pg: 'uuid default gen_random_uuid()', mysql: 'char(36) null', indexable: true },
    { name: 'blob_data', pg: 'bytea', mysql: 'blob null', indexable: false },
    {
      name: 'mood',
      pg: `public.mood_${table % ENUMS.length} not null default '${mood[1]}'`,
      mysql: `enum(${mood.map((v) => `'${v}'`).join(', ')}) not null default '${mood[1]}'`,
      indexable: true,
    },
    {
      name: 'name_len',
      pg: 'integer generated always as (char_length(name)) stored',
      mysql: 'int generated always as (char_length(name)) stored',
      indexable: false,
    },
    { name: 'rating', pg: 'numeric(3,1)', mysql: 'decimal(3,1) null', indexable: true },
    { name: 'ip', pg: 'inet', mysql: 'varchar(45) null', indexable: true },
    { name: 'duration', pg: 'interval', mysql: 'time null', indexable: true },
    {
      name: 'zip',
      pg: 'varchar(10) collate "C"',
      mysql: 'varchar(10) character set utf8mb4 collate utf8mb4_bin null',
      indexable: true,
    },
    {
      name: 'seen_at',
      pg: 'timestamp without time zone',
      mysql: 'timestamp null default null',
      indexable: true,
    },
  ];
}

const ACTIONS: ForeignKeySpec['onDelete'][] = ['no action', 'cascade', 'set null', 'restrict'];
const PALETTE_TAKEN = COLUMNS_PER_TABLE - 3 - FIXED.length;

export const tableName = (i: number) => `t_${String(i).padStart(4, '0')}`;

export function generateSchema(tables: number): TableSpec[] {
  const specs: TableSpec[] = [];
  for (let i = 0; i < tables; i++) {
    const name = tableName(i);
    const all = palette(i);
    const offset = (i * 5) % all.length;
    const picked = Array.from({ length: PALETTE_TAKEN }, (_, k) => all[(offset + k) % all.length]!);
    const columns: ColumnSpec[] = [
      { name: 'ref_a_id', pg: 'bigint', mysql: 'bigint null', indexable: true },
      { name: 'ref_b_id', pg: 'bigint', mysql: 'bigint null', indexable: true },
      ...FIXED,
      ...picked,
    ];
    if (i % 20 === 0) {
      const named = columns.find((c) => c.name === 'name')!;
      columns[columns.indexOf(named)] = { ...named, mysql: `${named.mysql} comment 'Display name'` };
    }
    // The first indexable palette column of the table (never the last one, which the changes drop).
    const keyColumn = picked.slice(0, -1).find((c) => c.indexable)!.name;
    const foreignKeys: ForeignKeySpec[] = [];
    if (i >= 1) {
      foreignKeys.push({
        name: `fk_${name}_ref_a`,
        column: 'ref_a_id',
        references: tableName(Math.floor(i / 2)),
        onDelete: ACTIONS[i % ACTIONS.length]!,
        onUpdate: 'no action',
        deferred: i % 10 === 5,
      });
    }
    if (i >= 2 && i % 2 === 0) {
      foreignKeys.push({
        name: `fk_${name}_ref_b`,
        column: 'ref_b_id',
        references: tableName(i - 1),
        onDelete: 'no action',
        onUpdate: i % 6 === 0 ? 'cascade' : 'no action',
        deferred: false,
      });
    }
    const indexes: IndexSpec[] = [
      { name: `ix_${name}_ref_a`, keys: ['ref_a_id'] },
      {
        name: `ix_${name}_${keyColumn}`,
        keys: i % 3 === 0 ? [keyColumn, 'created_at desc'] : [keyColumn, 'created_at'],
      },
    ];
    if (i % 5 === 0) indexes.push({ name: `ix_${name}_open`, keys: ['status'], where: "status <> 'closed'" });
    if (i % 11 === 0) indexes.push({ name: `ix_${name}_email_lower`, keys: ['lower(email)'], pgOnly: true });
    const uniques: TableSpec['uniques'] = [];
    if (i % 4 === 0) uniques.push({ name: `uq_${name}_email`, columns: ['email'] });
    if (i % 9 === 0) uniques.push({ name: `uq_${name}_name_ref`, columns: ['name', 'ref_a_id'] });
    const checks: TableSpec['checks'] = [];
    if (i % 3 === 0)
      checks.push({ name: `ck_${name}_status`, expression: "status in ('new', 'active', 'closed')" });
    if (i % 7 === 0) checks.push({ name: `ck_${name}_name`, expression: 'char_length(name) > 0' });
    specs.push({
      index: i,
      name,
      id: i % 10 === 0 ? 'bigserial' : i % 3 === 0 ? 'identity always' : 'identity by default',
      columns,
      comment: i % 10 === 0 ? `Generated table number ${i}` : null,
      uniques,
      checks,
      foreignKeys,
      indexes,
    });
  }
  return specs;
}

/** What introspection must find in the generated schema, by the model's own counting. */
export function expectedCounts(specs: TableSpec[], dialect: DialectName) {
  const sum = (f: (t: TableSpec) => number) => specs.reduce((n, t) => n + f(t), 0);
  const secondary = sum((t) => t.indexes.filter((i) => dialect === 'postgresql' || !i.pgOnly).length);
  const uniques = sum((t) => t.uniques.length);
  // InnoDB backs every foreign key whose column leads no index with an index of the key's name.
  const implicit = sum(
    (t) => t.foreignKeys.filter((fk) => !t.indexes.some((i) => i.keys[0] === fk.column)).length,
  );
  return {
    tables: specs.length,
    columns: sum((t) => t.columns.length + 1),
    foreign_keys: sum((t) => t.foreignKeys.length),
    check_constraints: sum((t) => t.checks.length),
    // MySQL has no unique constraints in the model: they are unique indexes.
    unique_constraints: dialect === 'postgresql' ? uniques : 0,
    indexes: dialect === 'postgresql' ? secondary : secondary + uniques + implicit,
  };
}

export type SchemaCounts = ReturnType<typeof expectedCounts>;

// --- DDL ---------------------------------------------------------------------------------------

/** A key part: a column (quoted), optionally descending, or an expression (as written). */
function keyPart(key: string, q: Quote): string {
  const column = /^([a-z_]+)( desc)?$/.exec(key);
  return column ? `${q(column[1]!)}${column[2] ?? ''}` : key;
}

const fkActions = (fk: ForeignKeySpec) => `on delete ${fk.onDelete} on update ${fk.onUpdate}`;

/** The PostgreSQL statements of the schema, in batches (one transaction each: a single one would
 * run out of lock slots, since every created relation stays locked until commit). */
export function postgresDdl(specs: TableSpec[], q: Quote, batch = 50): string[] {
  const out: string[] = [
    ENUMS.map(
      (values, i) =>
        `create type public.${q(`mood_${i}`)} as enum (${values.map((v) => `'${v}'`).join(', ')});`,
    ).join('\n'),
  ];
  for (let start = 0; start < specs.length; start += batch) {
    const statements: string[] = [];
    for (const t of specs.slice(start, start + batch)) {
      const table = `public.${q(t.name)}`;
      const id =
        t.id === 'bigserial'
          ? 'bigserial primary key'
          : `bigint generated ${t.id === 'identity always' ? 'always' : 'by default'} as identity primary key`;
      const lines = [
        `${q('id')} ${id}`,
        ...t.columns.map((c) => `${q(c.name)} ${c.pg}`),
        ...t.uniques.map((u) => `constraint ${q(u.name)} unique (${u.columns.map(q).join(', ')})`),
        ...t.checks.map((c) => `constraint ${q(c.name)} check (${c.expression})`),
        ...t.foreignKeys.map(
          (fk) =>
            `constraint ${q(fk.name)} foreign key (${q(fk.column)}) references public.${q(fk.references)} (${q('id')}) ${fkActions(fk)}` +
            (fk.deferred ? ' deferrable initially deferred' : ''),
        ),
      ];
      statements.push(`create table ${table} (\n  ${lines.join(',\n  ')}\n);`);
      for (const ix of t.indexes) {
        const keys = ix.keys.map((k) => keyPart(k, q)).join(', ');
        statements.push(
          `create index ${q(ix.name)} on ${table} (${keys})${ix.where ? ` where ${ix.where}` : ''};`,
        );
      }
      if (t.comment) statements.push(`comment on table ${table} is '${t.comment}';`);
      if (t.index % 20 === 0) statements.push(`comment on column ${table}.${q('name')} is 'Display name';`);
    }
    out.push(statements.join('\n'));
  }
  return out;
}

/** The MySQL/MariaDB statements of the schema, in batches (for a multi-statement connection). */
export function mysqlDdl(specs: TableSpec[], q: Quote, batch = 50): string[] {
  const out: string[] = [];
  for (let start = 0; start < specs.length; start += batch) {
    const statements: string[] = [];
    for (const t of specs.slice(start, start + batch)) {
      const lines = [
        `${q('id')} bigint not null auto_increment primary key`,
        ...t.columns.map((c) => `${q(c.name)} ${c.mysql}`),
        ...t.uniques.map((u) => `constraint ${q(u.name)} unique (${u.columns.map(q).join(', ')})`),
        ...t.checks.map((c) => `constraint ${q(c.name)} check (${c.expression})`),
        ...t.indexes
          .filter((ix) => !ix.pgOnly)
          .map((ix) => `index ${q(ix.name)} (${ix.keys.map((k) => keyPart(k, q)).join(', ')})`),
        ...t.foreignKeys.map(
          (fk) =>
            `constraint ${q(fk.name)} foreign key (${q(fk.column)}) references ${q(fk.references)} (${q('id')}) ${fkActions(fk)}`,
        ),
      ];
      const comment = t.comment ? ` comment = '${t.comment}'` : '';
      statements.push(`create table ${q(t.name)} (\n  ${lines.join(',\n  ')}\n) engine = InnoDB${comment};`);
    }
    out.push(statements.join('\n'));
  }
  return out;
}
