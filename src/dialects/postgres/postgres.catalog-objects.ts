// Catalog queries for the objects beyond tables (engine/schema/objects.ts): schemas, views and
// materialized views, functions and procedures, triggers, extensions, and the dependency edges that
// order plans. Same rules as postgres.catalog.ts: set-based, run with `search_path = ''` (so every
// definition the server prints is schema-qualified), system schemas and extension members left out.

const USER_SCHEMA = (column: string) => `(${column} <> 'information_schema' and ${column} !~ '^pg_')`;
const NOT_EXTENSION_MEMBER = (classid: string, objid: string) => `not exists (
      select 1 from pg_depend e
      where e.classid = '${classid}'::regclass and e.objid = ${objid} and e.deptype = 'e'
    )`;

export const SCHEMAS_SQL = `
  select n.nspname as name, ds.description as comment
  from pg_namespace n
  left join pg_description ds on ds.objoid = n.oid and ds.classoid = 'pg_namespace'::regclass
  where ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION_MEMBER('pg_namespace', 'n.oid')}`;

export interface SchemaRow {
  name: string;
  comment: string | null;
}

// Views and materialized views, for which the indexes query runs too (indexesOf).
export const VIEW_RELATIONS = `
  select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind = 'm' and ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION_MEMBER('pg_class', 'c.oid')}`;

export const VIEWS_SQL = `
  select c.oid, n.nspname as schema, c.relname as name, c.relkind = 'm' as materialized,
    pg_get_viewdef(c.oid, true) as definition,
    coalesce(c.reloptions, '{}') as options,
    coalesce((
      select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod))
        order by a.attnum)
      from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    ), '[]') as columns,
    ds.description as comment
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_description ds on ds.objoid = c.oid and ds.classoid = 'pg_class'::regclass and ds.objsubid = 0
  where c.relkind in ('v', 'm') and ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION_MEMBER('pg_class', 'c.oid')}`;

export interface ViewRow {
  oid: number;
  schema: string;
  name: string;
  materialized: boolean;
  definition: string;
  options: string[];
  columns: { name: string; type: string }[];
  comment: string | null;
}

// Plain functions and procedures; aggregates and window functions have no pg_get_functiondef.
export const ROUTINES_SQL = `
  select p.oid, n.nspname as schema,
    p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as name,
    case p.prokind when 'p' then 'procedure' else 'function' end as kind,
    pg_get_function_arguments(p.oid) as arguments,
    case when p.prokind = 'p' then null else pg_get_function_result(p.oid) end as result,
    pg_get_functiondef(p.oid) as definition,
    ds.description as comment
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  left join pg_description ds on ds.objoid = p.oid and ds.classoid = 'pg_proc'::regclass
  where p.prokind in ('f', 'p') and ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION_MEMBER('pg_proc', 'p.oid')}`;

export interface RoutineRow {
  oid: number;
  schema: string;
  name: string;
  kind: 'function' | 'procedure';
  arguments: string;
  result: string | null;
  definition: string;
  comment: string | null;
}

// User triggers; a partition's clone of its parent's trigger (dependency 'P') is the parent's.
export const TRIGGERS_SQL = `
  select t.oid, n.nspname as schema, c.relname as table_name, t.tgname as name,
    pg_get_triggerdef(t.oid) as definition, t.tgenabled as state,
    pn.nspname as function_schema,
    p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as function_name,
    ds.description as comment
  from pg_trigger t
  join pg_class c on c.oid = t.tgrelid
  join pg_namespace n on n.oid = c.relnamespace
  join pg_proc p on p.oid = t.tgfoid
  join pg_namespace pn on pn.oid = p.pronamespace
  left join pg_description ds on ds.objoid = t.oid and ds.classoid = 'pg_trigger'::regclass
  where not t.tgisinternal and ${USER_SCHEMA('n.nspname')}
    and ${NOT_EXTENSION_MEMBER('pg_class', 'c.oid')}
    and not exists (
      select 1 from pg_depend d
      where d.classid = 'pg_trigger'::regclass and d.objid = t.oid and d.deptype = 'P'
    )`;

export interface TriggerRow {
  oid: number;
  schema: string;
  table_name: string;
  name: string;
  definition: string;
  state: 'O' | 'D' | 'R' | 'A';
  function_schema: string;
  function_name: string;
  comment: string | null;
}

// Extensions in pg_catalog (plpgsql, which every database has) are part of the server.
export const EXTENSIONS_SQL = `
  select e.extname as name, n.nspname as schema, e.extversion as version
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace
  where n.nspname <> 'pg_catalog'`;

export interface ExtensionRow {
  name: string;
  schema: string;
  version: string;
}

// What views (through their rewrite rule) and functions (BEGIN ATOMIC bodies, argument and result
// types) read: relations and their columns, functions, types; and the columns a trigger names.
// Edges to system objects are dropped by the model builder.
export const DEPENDENCIES_SQL = `
  select distinct
    case when d.classid = 'pg_rewrite'::regclass then 'view'
      when d.classid = 'pg_trigger'::regclass then 'trigger' else 'routine' end as owner_kind,
    case when d.classid = 'pg_rewrite'::regclass then r.ev_class else d.objid end as owner_oid,
    case
      when d.refclassid = 'pg_class'::regclass then
        case rc.relkind when 'v' then 'view' when 'm' then 'materialized_view' else 'table' end
      when d.refclassid = 'pg_proc'::regclass then 'routine'
      else 'type'
    end as kind,
    coalesce(rn.nspname, pn.nspname, tn.nspname) as schema,
    coalesce(rc.relname::text, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
      t.typname::text) as name,
    case when d.refclassid = 'pg_class'::regclass and d.refobjsubid > 0 then a.attname::text end as column
  from pg_depend d
  left join pg_rewrite r on d.classid = 'pg_rewrite'::regclass and r.oid = d.objid
  left join pg_class rc on d.refclassid = 'pg_class'::regclass and rc.oid = d.refobjid
  left join pg_namespace rn on rn.oid = rc.relnamespace
  left join pg_attribute a on a.attrelid = rc.oid and a.attnum = d.refobjsubid and d.refobjsubid > 0
  left join pg_proc p on d.refclassid = 'pg_proc'::regclass and p.oid = d.refobjid
  left join pg_namespace pn on pn.oid = p.pronamespace
  left join pg_type t on d.refclassid = 'pg_type'::regclass and t.oid = d.refobjid
  left join pg_namespace tn on tn.oid = t.typnamespace
  where d.deptype = 'n'
    and (d.classid in ('pg_rewrite'::regclass, 'pg_proc'::regclass)
      -- A trigger's columns (UPDATE OF, WHEN): the server refuses to retype them under it.
      or (d.classid = 'pg_trigger'::regclass and d.refclassid = 'pg_class'::regclass and d.refobjsubid > 0))
    and d.refclassid in ('pg_class'::regclass, 'pg_proc'::regclass, 'pg_type'::regclass)
    and (d.classid <> 'pg_rewrite'::regclass or d.refobjid <> r.ev_class)
    and coalesce(rn.nspname, pn.nspname, tn.nspname) is not null`;

export interface DependencyRow {
  owner_kind: 'view' | 'routine' | 'trigger';
  owner_oid: number;
  kind: 'table' | 'view' | 'materialized_view' | 'routine' | 'type';
  schema: string;
  name: string;
  column: string | null;
}

// Domains and composite types (not a table's row type).
export const TYPES_SQL = `
  select n.nspname as schema, t.typname as name,
    case t.typtype when 'd' then 'domain' else 'composite' end as kind,
    case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end as base,
    case when t.typtype = 'd' then pg_get_expr(t.typdefaultbin, 0) end as default_value,
    case when t.typtype = 'd' and t.typcollation <> 0 and t.typcollation <> bt.typcollation then
      case when cn.nspname = 'pg_catalog' then quote_ident(co.collname)
        else quote_ident(cn.nspname) || '.' || quote_ident(co.collname) end
    end as collation,
    t.typnotnull as not_null,
    coalesce((
      select json_agg(json_build_object('name', c.conname, 'definition', pg_get_constraintdef(c.oid, true))
        order by c.conname)
      from pg_constraint c where c.contypid = t.oid
    ), '[]') as checks,
    coalesce((
      select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod))
        order by a.attnum)
      from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped
    ), '[]') as attributes,
    ds.description as comment
  from pg_type t
  join pg_namespace n on n.oid = t.typnamespace
  left join pg_type bt on bt.oid = t.typbasetype
  left join pg_collation co on co.oid = t.typcollation
  left join pg_namespace cn on cn.oid = co.collnamespace
  left join pg_description ds on ds.objoid = t.oid and ds.classoid = 'pg_type'::regclass
  where (t.typtype = 'd'
      or (t.typtype = 'c' and exists (select 1 from pg_class c where c.oid = t.typrelid and c.relkind = 'c')))
    and ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION_MEMBER('pg_type', 't.oid')}`;

export interface TypeRow {
  schema: string;
  name: string;
  kind: 'domain' | 'composite';
  base: string | null;
  default_value: string | null;
  collation: string | null;
  not_null: boolean;
  checks: { name: string; definition: string }[];
  attributes: { name: string; type: string }[];
  comment: string | null;
}

export const POLICIES_SQL = `
  select p.polrelid as table_oid, p.polname as name,
    case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE'
      when 'd' then 'DELETE' else 'ALL' end as command,
    p.polpermissive as permissive,
    array(
      -- text, not name: the driver parses text[] into an array.
      select case when r = 0 then 'public' else (select rolname::text from pg_roles where oid = r) end
      from unnest(p.polroles) r order by 1
    ) as roles,
    pg_get_expr(p.polqual, p.polrelid, true) as using_expr,
    pg_get_expr(p.polwithcheck, p.polrelid, true) as check_expr
  from pg_policy p`;

export interface PolicyRow {
  table_oid: number;
  name: string;
  command: string;
  permissive: boolean;
  roles: string[];
  using_expr: string | null;
  check_expr: string | null;
}

export const ROW_SECURITY_SQL = `
  select c.oid as table_oid, c.relrowsecurity as enabled, c.relforcerowsecurity as forced
  from pg_class c where c.relkind in ('r', 'p') and (c.relrowsecurity or c.relforcerowsecurity)`;

export interface RowSecurityRow {
  table_oid: number;
  enabled: boolean;
  forced: boolean;
}

// Whatever this server's catalog calls the columns (the ICU locale moved between versions).
export const COLLATIONS_SQL = `
  select n.nspname as schema, c.collname as name, to_jsonb(c) as row
  from pg_collation c join pg_namespace n on n.oid = c.collnamespace
  where ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION_MEMBER('pg_collation', 'c.oid')}`;

export interface CollationRow {
  schema: string;
  name: string;
  row: Record<string, unknown>;
}

// Checks, column defaults and indexes that call a user function: they step aside while the
// function is dropped and created again (a new result or argument list).
export const ROUTINE_USES_SQL = `
  select coalesce(con.conrelid, ad.adrelid, ix.indrelid) as table_oid,
    case d.classid when 'pg_constraint'::regclass then 'check'
      when 'pg_attrdef'::regclass then 'default' else 'index' end as kind,
    coalesce(con.conname::text, a.attname::text, ic.relname::text) as name,
    pn.nspname as routine_schema,
    p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as routine_name
  from pg_depend d
  join pg_proc p on p.oid = d.refobjid
  join pg_namespace pn on pn.oid = p.pronamespace
  left join pg_constraint con on d.classid = 'pg_constraint'::regclass and con.oid = d.objid and con.contype = 'c'
  left join pg_attrdef ad on d.classid = 'pg_attrdef'::regclass and ad.oid = d.objid
  left join pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum and a.attgenerated = ''
  left join pg_index ix on d.classid = 'pg_class'::regclass and ix.indexrelid = d.objid
  left join pg_class ic on ic.oid = ix.indexrelid
  where d.refclassid = 'pg_proc'::regclass and d.deptype = 'n'
    and d.classid in ('pg_constraint'::regclass, 'pg_attrdef'::regclass, 'pg_class'::regclass)
    and ${USER_SCHEMA('pn.nspname')}
    and coalesce(con.conname::text, a.attname::text, ic.relname::text) is not null`;

export interface RoutineUseRow {
  table_oid: number;
  kind: 'check' | 'default' | 'index';
  name: string;
  routine_schema: string;
  routine_name: string;
}

export interface ObjectRows {
  schemas: SchemaRow[];
  views: ViewRow[];
  viewIndexes: import('./postgres.catalog.ts').IndexRow[];
  routines: RoutineRow[];
  triggers: TriggerRow[];
  extensions: ExtensionRow[];
  types: TypeRow[];
  dependencies: DependencyRow[];
  policies: PolicyRow[];
  rowSecurity: RowSecurityRow[];
  collations: CollationRow[];
  routineUses?: RoutineUseRow[];
}
