// The objects the migration bench (bench/migration.ts) adds to its generated schema on PostgreSQL,
// so that compare + plan + lint are measured on a schema as production databases have them: views
// over tables and over other views (a chain of dependencies), SQL functions that read tables,
// trigger functions and triggers. Deterministic, like schema-fixture.ts. The source gets a variant
// (`changed`): some view definitions and function bodies differ, so the plan replaces them and
// steps the views over the source's retyped columns aside.
import type { Quote, TableSpec } from './schema-fixture.ts';

export interface ObjectCounts {
  views: number;
  functions: number;
  triggers: number;
}

export const OBJECT_COUNTS: ObjectCounts = { views: 200, functions: 100, triggers: 50 };

/**
 * The DDL of the objects over `specs` (tables named in `gone` are skipped: the source dropped them).
 * `changed`: every tenth view and function differs.
 */
export function objectsDdl(specs: TableSpec[], q: Quote, gone: Set<string>, changed: boolean): string[] {
  const tables = specs.filter((t) => !gone.has(t.name));
  const at = (i: number) => tables[(i * 7) % tables.length]!;
  const t = (spec: TableSpec) => `public.${q(spec.name)}`;
  const out: string[] = [];
  const base = Math.round(OBJECT_COUNTS.views * 0.75);
  for (let i = 0; i < OBJECT_COUNTS.views; i++) {
    const name = q(`v_${String(i).padStart(3, '0')}`);
    const tweak = changed && i % 10 === 0 ? ` and ${q('id')} < 1000000` : '';
    if (i < base)
      out.push(
        `create view public.${name} as select ${q('id')}, ${q('name')}, ${q('created_at')} from ${t(at(i))} where ${q('id')} > ${i}${tweak};`,
      );
    else {
      const over = q(`v_${String(i - base).padStart(3, '0')}`);
      out.push(
        `create view public.${name} as select ${q('id')}, ${q('name')} from public.${over} where ${q('name')} <> ''${tweak};`,
      );
    }
  }
  for (let i = 0; i < OBJECT_COUNTS.functions; i++) {
    const name = q(`f_${String(i).padStart(3, '0')}`);
    const factor = changed && i % 10 === 0 ? 2 : 1;
    out.push(
      `create function public.${name}(p bigint) returns bigint language sql stable as $$ select count(*) * ${factor} from ${t(at(i + 3))} where ${q('id')} > p $$;`,
    );
  }
  out.push(
    `create function public.${q('touch')}() returns trigger language plpgsql as $$ begin new.${q('created_at')} := now(); return new; end $$;`,
  );
  for (let i = 0; i < OBJECT_COUNTS.triggers; i++) {
    const name = q(`tr_${String(i).padStart(3, '0')}`);
    out.push(
      `create trigger ${name} before update on ${t(at(i + 5))} for each row execute function public.${q('touch')}();`,
    );
  }
  const batches: string[] = [];
  for (let i = 0; i < out.length; i += 50) batches.push(out.slice(i, i + 50).join('\n'));
  return batches;
}
