// The PostgreSQL catalog query for objects outside the managed scope (see postgres.catalog.ts for
// the rules): listed by kind and name, so that drift names one that appears or goes; never planned.
// Extension members are the extension's business; the extension itself is listed.
export const UNMANAGED_SQL = `
  select o.kind, o.schema, o.name, o.table_name from (
    select case c.relkind when 'v' then 'view' when 'm' then 'materialized_view' else 'foreign_table' end as kind,
      n.nspname as schema, c.relname::text as name, null::text as table_name,
      'pg_class'::regclass as classid, c.oid as objid
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('v', 'm', 'f')
    union all
    select case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' else 'function' end,
      n.nspname, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')', null,
      'pg_proc'::regclass, p.oid
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    union all
    select 'trigger', n.nspname, t.tgname::text, c.relname::text, 'pg_trigger'::regclass, t.oid
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where not t.tgisinternal
    union all
    select 'rule', n.nspname, r.rulename::text, c.relname::text, 'pg_rewrite'::regclass, r.oid
    from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
    where r.rulename <> '_RETURN'
    union all
    select 'policy', n.nspname, p.polname::text, c.relname::text, 'pg_policy'::regclass, p.oid
    from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
    union all
    select 'statistics', n.nspname, s.stxname::text, c.relname::text, 'pg_statistic_ext'::regclass, s.oid
    from pg_statistic_ext s join pg_class c on c.oid = s.stxrelid join pg_namespace n on n.oid = s.stxnamespace
    union all
    select 'extension', null, e.extname::text, null, 'pg_extension'::regclass, e.oid
    from pg_extension e
    union all
    select case t.typtype when 'd' then 'domain' else 'type' end, n.nspname, t.typname::text, null,
      'pg_type'::regclass, t.oid
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype in ('d', 'r')
      or (t.typtype = 'c' and exists (select 1 from pg_class c where c.oid = t.typrelid and c.relkind = 'c'))
  ) o
  where (o.schema is null or (o.schema <> 'information_schema' and o.schema !~ '^pg_'))
    and not exists (
      select 1 from pg_depend d where d.classid = o.classid and d.objid = o.objid and d.deptype = 'e'
    )`;

export interface UnmanagedRow {
  kind:
    | 'view'
    | 'materialized_view'
    | 'foreign_table'
    | 'function'
    | 'procedure'
    | 'aggregate'
    | 'trigger'
    | 'rule'
    | 'policy'
    | 'extension'
    | 'domain'
    | 'type'
    | 'statistics';
  schema: string | null;
  name: string;
  table_name: string | null;
}
