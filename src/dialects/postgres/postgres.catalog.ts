// The catalog queries of PostgreSQL introspection: one set-based query per kind of object, whatever
// the number of tables (a per-table query would make a 1,000-table schema take a thousand round
// trips). They run in one REPEATABLE READ READ ONLY transaction with `search_path = ''`, so every
// name pg_get_expr() and format_type() print outside pg_catalog is schema-qualified (reference
// notes §1) and all queries see the same snapshot. System schemas and the members of extensions
// are left out here; shadow objects later, by the engine's filter.
import type { UnmanagedRow } from './postgres.catalog-unmanaged.ts';

// Ordinary and partitioned tables, not temporary ones, outside system schemas and extensions.
export const TABLES_RELATIONS = `
  select c.oid, n.nspname as schema, c.relname as name
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p')
    and c.relpersistence <> 't'
    and n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
    and not exists (
      select 1 from pg_depend d
      where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e'
    )`;

export const TABLES_SQL = `
  with rel as (${TABLES_RELATIONS})
  select r.oid, r.schema, r.name, ds.description as comment,
    case when c.relkind = 'p' then pg_get_partkeydef(c.oid) end as partition_key,
    pg_get_expr(c.relpartbound, c.oid) as partition_bound,
    coalesce((
      select json_agg(json_build_object('schema', pn.nspname, 'name', pc.relname) order by ih.inhseqno)
      from pg_inherits ih
      join pg_class pc on pc.oid = ih.inhparent
      join pg_namespace pn on pn.oid = pc.relnamespace
      where ih.inhrelid = r.oid
    ), '[]') as parents,
    c.reloptions as storage_parameters, c.relpersistence = 'u' as unlogged,
    case c.relreplident when 'f' then 'full' when 'n' then 'nothing'
      when 'i' then coalesce((
        select 'index ' || ic.relname from pg_index i join pg_class ic on ic.oid = i.indexrelid
        where i.indrelid = r.oid and i.indisreplident
      ), 'default')
      else 'default' end as replica_identity,
    (select ic.relname from pg_index i join pg_class ic on ic.oid = i.indexrelid
      where i.indrelid = r.oid and i.indisclustered) as cluster_on
  from rel r
  join pg_class c on c.oid = r.oid
  left join pg_description ds on ds.objoid = r.oid and ds.classoid = 'pg_class'::regclass and ds.objsubid = 0`;

export interface TableRow {
  oid: number;
  schema: string;
  name: string;
  comment: string | null;
  partition_key: string | null;
  /** Set on partitions (`FOR VALUES …`, `DEFAULT`); the first parent is the partitioned table. */
  partition_bound: string | null;
  parents: { schema: string; name: string }[];
  storage_parameters?: string[] | null;
  unlogged?: boolean;
  replica_identity?: string;
  cluster_on?: string | null;
}

/** Catalog columns that only newer servers have: the queries name them only there. */
export interface CatalogFeatures {
  /** pg_index.indnullsnotdistinct: PostgreSQL 15. */
  nullsNotDistinct: boolean;
  /** pg_attribute.attcompression: PostgreSQL 14. */
  compression: boolean;
  /** The `jit` setting: PostgreSQL 11. */
  jit: boolean;
}

export function catalogFeatures(serverVersion: string): CatalogFeatures {
  const major = Number.parseInt(serverVersion, 10);
  return { nullsNotDistinct: major >= 15, compression: major >= 14, jit: major >= 11 };
}

const LATEST: CatalogFeatures = { nullsNotDistinct: true, compression: true, jit: true };

// The collation is reported only where it differs from the type's own (an explicit COLLATE).
export const COLUMNS_SQL = columnsSql(LATEST);

export function columnsSql(features: CatalogFeatures): string {
  return `
  with rel as (${TABLES_RELATIONS})
  select a.attrelid as table_oid, a.attname as name, a.attnum as position,
    format_type(a.atttypid, a.atttypmod) as type,
    a.attnotnull as not_null,
    -- A default reads no column (the server refuses one that does), so it is printed without its
    -- table: naming the table makes the server open it for every column. A generated column's
    -- expression reads the others and needs it.
    pg_get_expr(ad.adbin, case when a.attgenerated <> '' then ad.adrelid else 0 end) as default_expr,
    a.attidentity as identity, a.attgenerated as generated,
    case when a.attcollation <> 0 and a.attcollation <> t.typcollation then
      case when cn.nspname = 'pg_catalog' then quote_ident(co.collname)
        else quote_ident(cn.nspname) || '.' || quote_ident(co.collname) end
    end as collation,
    ds.description as comment,
    case when t.typtype = 'e' then t.oid when et.typtype = 'e' then et.oid end as enum_oid,
    a.attinhcount > 0 as inherited,
    case when a.attstorage <> t.typstorage then
      case a.attstorage when 'p' then 'plain' when 'e' then 'external' when 'x' then 'extended' else 'main' end
    end as storage,
    ${features.compression ? "case a.attcompression when 'p' then 'pglz' when 'l' then 'lz4' end" : 'null'} as compression,
    case when a.attidentity <> '' then (
      select json_build_object('data_type', format_type(s.seqtypid, null), 'start', s.seqstart::text,
        'increment', s.seqincrement::text, 'min_value', s.seqmin::text, 'max_value', s.seqmax::text,
        'cache', s.seqcache::text, 'cycle', s.seqcycle)
      from pg_depend d join pg_sequence s on s.seqrelid = d.objid
      where a.attidentity <> '' and d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass
        and d.refobjid = a.attrelid and d.refobjsubid = a.attnum and d.deptype = 'i'
      limit 1
    ) end as identity_options
  from rel r
  join pg_attribute a on a.attrelid = r.oid
  join pg_type t on t.oid = a.atttypid
  left join pg_type et on et.oid = t.typelem and t.typelem <> 0
  left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
  left join pg_collation co on co.oid = a.attcollation
  left join pg_namespace cn on cn.oid = co.collnamespace
  left join pg_description ds on ds.objoid = a.attrelid and ds.classoid = 'pg_class'::regclass and ds.objsubid = a.attnum
  where a.attnum > 0 and not a.attisdropped
  order by a.attrelid, a.attnum`;
}

export interface ColumnRow {
  table_oid: number;
  name: string;
  position: number;
  type: string;
  not_null: boolean;
  default_expr: string | null;
  identity: string;
  generated: string;
  collation: string | null;
  comment: string | null;
  enum_oid: number | null;
  inherited: boolean;
  storage?: string | null;
  compression?: string | null;
  identity_options: {
    data_type: string;
    start: string;
    increment: string;
    min_value: string;
    max_value: string;
    cache: string;
    cycle: boolean;
  } | null;
}

export const CONSTRAINTS_SQL = constraintsSql(LATEST);

export function constraintsSql(features: CatalogFeatures): string {
  return `
  with rel as (${TABLES_RELATIONS})
  select con.conrelid as table_oid, con.conname as name, con.contype as type,
    coalesce(con.conkey::int[], '{}') as keys,
    fn.nspname as ref_schema, fc.relname as ref_table,
    -- The referenced table may be one the columns query leaves out (an extension's): named here.
    case when con.contype = 'f' then array(
      select (select a.attname::text from pg_attribute a where a.attrelid = con.confrelid and a.attnum = k.num)
      from unnest(con.confkey) with ordinality k(num, ord) order by k.ord
    ) end as ref_columns,
    con.confupdtype as on_update, con.confdeltype as on_delete,
    con.condeferrable as deferrable, con.condeferred as deferred,
    case when con.contype = 'c' then pg_get_expr(con.conbin, con.conrelid, true) end as expression,
    case when con.contype = 'x' then pg_get_constraintdef(con.oid, true) end as definition,
    not con.convalidated as not_valid, con.connoinherit as no_inherit,
    con.confmatchtype = 'f' as match_full,
    ${features.nullsNotDistinct ? 'coalesce(ci.indnullsnotdistinct, false)' : 'false'} as nulls_not_distinct,
    cc.reloptions as index_options,
    ds.description as comment
  from rel r
  join pg_constraint con on con.conrelid = r.oid
  left join pg_index ci on ci.indexrelid = con.conindid and con.contype in ('p', 'u')
  left join pg_class cc on cc.oid = ci.indexrelid
  left join pg_class fc on fc.oid = con.confrelid
  left join pg_namespace fn on fn.oid = fc.relnamespace
  left join pg_description ds on ds.objoid = con.oid and ds.classoid = 'pg_constraint'::regclass and ds.objsubid = 0
  where con.contype in ('p', 'u', 'c', 'f', 'x')
    -- A partition's copies of its parent's constraints, and checks only inherited, are the parent's.
    and con.conparentid = 0 and con.conislocal`;
}

export interface ConstraintRow {
  table_oid: number;
  name: string;
  type: 'p' | 'u' | 'c' | 'f' | 'x';
  /** The key's attribute numbers, in order: named from the table's column rows. */
  keys: number[];
  ref_schema: string | null;
  ref_table: string | null;
  /** A foreign key's referenced columns, in order; null for other constraints. */
  ref_columns: string[] | null;
  on_update: string;
  on_delete: string;
  deferrable: boolean;
  deferred: boolean;
  expression: string | null;
  definition: string | null;
  not_valid: boolean;
  no_inherit: boolean;
  match_full: boolean;
  nulls_not_distinct: boolean;
  index_options: string[] | null;
  comment: string | null;
}

// Indexes that back a constraint belong to it; invalid ones are failed CREATE INDEX CONCURRENTLY
// leftovers (their names: src/engine/schema/filter.ts). Each key part is printed by the server, then decorated with a
// non-default operator class and the sort options from indoption (bit 1 DESC, bit 2 NULLS FIRST).
export const INDEXES_SQL = indexesOf(TABLES_RELATIONS);

/** The indexes of the relations `relations` selects (oid, …): tables, or materialized views. */
export function indexesOf(relations: string, features: CatalogFeatures = LATEST): string {
  return `
  with rel as (${relations})
  select i.indrelid as table_oid, ic.relname as name, i.indisunique as unique, am.amname as method,
    pg_get_expr(i.indpred, i.indrelid, true) as predicate,
    ${features.nullsNotDistinct ? 'i.indnullsnotdistinct' : 'false'} as nulls_not_distinct,
    ic.reloptions as options,
    ds.description as comment,
    array(
      select pg_get_indexdef(i.indexrelid, k.n, true)
        -- A collation other than the key's own: a column's, or the database default for an
        -- expression (the server prints it in the same cases, bar an expression's own collation).
        || case when i.indcollation[k.n - 1] = 0 then ''
             when i.indkey[k.n - 1] <> 0 and i.indcollation[k.n - 1] = (
               select ka.attcollation from pg_attribute ka
               where ka.attrelid = i.indrelid and ka.attnum = i.indkey[k.n - 1]) then ''
             when i.indkey[k.n - 1] = 0 and i.indcollation[k.n - 1] = 100 then ''
             else (select ' COLLATE ' || case when kn.nspname = 'pg_catalog' then quote_ident(kc.collname)
                     else quote_ident(kn.nspname) || '.' || quote_ident(kc.collname) end
                   from pg_collation kc join pg_namespace kn on kn.oid = kc.collnamespace
                   where kc.oid = i.indcollation[k.n - 1]) end
        || case when opc.opcdefault or opc.oid is null then '' else ' ' || quote_ident(opc.opcname) end
        || case when (i.indoption[k.n - 1]::int & 1) = 1 then ' DESC' else '' end
        || case (i.indoption[k.n - 1]::int & 3) when 2 then ' NULLS FIRST' when 1 then ' NULLS LAST' else '' end
      from generate_series(1, i.indnkeyatts::int) k(n)
      left join pg_opclass opc on opc.oid = i.indclass[k.n - 1]
      order by k.n
    ) as columns,
    array(
      select pg_get_indexdef(i.indexrelid, k.n, true)
      from generate_series(i.indnkeyatts::int + 1, i.indnatts::int) k(n) order by k.n
    ) as include
  from rel r
  join pg_index i on i.indrelid = r.oid
  join pg_class ic on ic.oid = i.indexrelid
  join pg_am am on am.oid = ic.relam
  left join pg_description ds on ds.objoid = i.indexrelid and ds.classoid = 'pg_class'::regclass and ds.objsubid = 0
  where i.indisvalid
    -- A partition's index attached to its parent's index is the parent's.
    and not exists (select 1 from pg_inherits ih where ih.inhrelid = i.indexrelid)
    and not exists (
      select 1 from pg_constraint con
      where con.conindid = i.indexrelid and con.conrelid = i.indrelid and con.contype in ('p', 'u', 'x')
    )`;
}

export interface IndexRow {
  table_oid: number;
  name: string;
  unique: boolean;
  method: string;
  predicate: string | null;
  nulls_not_distinct: boolean;
  options: string[] | null;
  comment?: string | null;
  columns: string[];
  include: string[];
}

export const ENUMS_SQL = `
  select t.oid, n.nspname as schema, t.typname as name,
    array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) as values,
    obj_description(t.oid, 'pg_type') as comment
  from pg_type t
  join pg_namespace n on n.oid = t.typnamespace
  where t.typtype = 'e'
    and n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
    and not exists (
      select 1 from pg_depend d where d.classid = 'pg_type'::regclass and d.objid = t.oid and d.deptype = 'e'
    )`;

export interface EnumRow {
  oid: number;
  schema: string;
  name: string;
  values: string[];
  comment?: string | null;
}

// Identity sequences are part of their column's identity and not listed.
export const SEQUENCES_SQL = `
  select c.oid, n.nspname as schema, c.relname as name, format_type(s.seqtypid, null) as data_type,
    s.seqstart::text as start, s.seqincrement::text as increment, s.seqmin::text as min_value,
    s.seqmax::text as max_value, s.seqcache::text as cache, s.seqcycle as cycle,
    own.table_oid as owner_table_oid, own.column_name as owner_column,
    obj_description(c.oid, 'pg_class') as comment
  from pg_sequence s
  join pg_class c on c.oid = s.seqrelid
  join pg_namespace n on n.oid = c.relnamespace
  left join lateral (
    select d.refobjid as table_oid, a.attname as column_name
    from pg_depend d
    join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
    where d.classid = 'pg_class'::regclass and d.objid = s.seqrelid
      and d.refclassid = 'pg_class'::regclass and d.refobjsubid > 0 and d.deptype = 'a'
    limit 1
  ) own on true
  where n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
    and not exists (
      select 1 from pg_depend d
      where d.classid = 'pg_class'::regclass and d.objid = s.seqrelid and d.deptype in ('i', 'e')
    )`;

export interface SequenceRow {
  oid: number;
  schema: string;
  name: string;
  data_type: string;
  start: string;
  increment: string;
  min_value: string;
  max_value: string;
  cache: string;
  cycle: boolean;
  owner_table_oid: number | null;
  owner_column: string | null;
  comment?: string | null;
}

// Column defaults that call a sequence (nextval('s'::regclass) records a normal dependency on it).
// Read from the sequences' side: they are few, column defaults are many.
export const SEQUENCE_USES_SQL = `
  select s.oid as sequence_oid, ad.adrelid as table_oid, a.attname as column_name
  from pg_class s
  join pg_depend d on d.refclassid = 'pg_class'::regclass and d.refobjid = s.oid and d.refobjsubid = 0
    and d.classid = 'pg_attrdef'::regclass
  join pg_attrdef ad on ad.oid = d.objid
  join pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
  where s.relkind = 'S'`;

export interface SequenceUseRow {
  sequence_oid: number;
  table_oid: number;
  column_name: string;
}

export interface CatalogRows {
  serverVersion: string;
  tables: TableRow[];
  columns: ColumnRow[];
  constraints: ConstraintRow[];
  indexes: IndexRow[];
  enums: EnumRow[];
  sequences: SequenceRow[];
  sequenceUses: SequenceUseRow[];
  unmanaged: UnmanagedRow[];
}
