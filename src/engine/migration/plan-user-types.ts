// Domains and composite types: created with the other types, before the tables whose columns use
// them (a domain over an enum after the enum, a domain or composite over another after it);
// dropped after those tables, before the enums they may be built on. A change that keeps the kind
// and the base type is made in place (alter_type); another base type or kind means the type goes
// and comes back, which the server refuses while a column uses it: the plan says so in a note.
import type { EngineTraits } from '../schema/engine-traits.ts';
import type { ColumnModel, TableModel } from '../schema/model.ts';
import type { UserTypeModel } from '../schema/objects.ts';
import { dependencyOrder } from './dependency-order.ts';
import { type MigrationOperation, ref } from './operations.ts';
import { columnSteps } from './plan-columns.ts';
import { columnNodeKey, namedTypeKey } from './plan-graph.ts';
import type { Phases } from './plan-tables.ts';
import type { PlanNote } from './plan-types.ts';

const key = (t: UserTypeModel) => `${t.schema}.${t.name}`;

interface DomainColumn {
  table: TableModel;
  column: ColumnModel;
}

/** The target's columns of the domain (or of an array of it). */
function domainColumns(tables: TableModel[], domain: UserTypeModel): DomainColumn[] {
  const wanted = `type:${key(domain)}`;
  return tables.flatMap((table) =>
    table.columns
      .filter((column) => column.inherited !== true && namedTypeKey(column.type) === wanted)
      .map((column) => ({ table, column })),
  );
}

/**
 * A domain whose base type changes while columns use it: the server has no ALTER for that and
 * refuses to drop it under them. So its columns move to the former base type, the domain is
 * dropped and created anew, and the columns move back (each a retype, with its default stepping
 * aside; views and routines over them step aside through `broken`). Its rollback is the same
 * backwards.
 */
function swapDomain(
  p: Phases,
  broken: Set<string>,
  existing: UserTypeModel,
  wanted: UserTypeModel,
  columns: DomainColumn[],
  engine: EngineTraits,
): void {
  const away: MigrationOperation[] = [];
  const back: MigrationOperation[] = [];
  for (const { table, column } of columns) {
    const arrays = /(\[\])*$/.exec(column.type)?.[0] ?? '';
    const plain = { ...column, type: `${existing.base}${arrays}` };
    away.push(...columnSteps(ref(table), column, plain, engine));
    back.push(...columnSteps(ref(table), plain, column, engine));
    broken.add(columnNodeKey(table, column.name));
  }
  broken.add(`type:${key(existing)}`);
  broken.add(`type:${existing.schema}._${existing.name}`);
  p.columns.unshift(
    ...away,
    { kind: 'drop_type', type: existing },
    { kind: 'create_type', type: wanted },
    ...back,
  );
}
/** The types a type is built on, by the key format_type prints them with (quoted names stripped). */
const builtOn = (t: UserTypeModel) =>
  [t.base, ...t.attributes.map((a) => a.type)]
    .filter((type): type is string => type !== null)
    .map((type) =>
      type
        .replace(/"/g, '')
        .replace(/(\[\])+$/, '')
        .replace(/\(.*\)$/, ''),
    );

export function planUserTypes(
  p: Phases,
  notes: PlanNote[],
  src: UserTypeModel[],
  tgt: UserTypeModel[],
  engine: EngineTraits,
  tables: TableModel[] = [],
  broken: Set<string> = new Set(),
): void {
  const before = new Map(tgt.map((t) => [key(t), t]));
  const wanted = new Set(src.map(key));
  const dropped: UserTypeModel[] = [];
  for (const type of dependencyOrder(src, key, builtOn)) {
    const existing = before.get(key(type));
    if (!existing) {
      p.types.push({ kind: 'create_type', type });
      continue;
    }
    if (JSON.stringify(existing) === JSON.stringify(type)) continue;
    const columns =
      existing.kind === 'domain' && type.kind === 'domain' ? domainColumns(tables, existing) : [];
    if (columns.length > 0 && (existing.base !== type.base || existing.collation !== type.collation)) {
      swapDomain(p, broken, existing, type, columns, engine);
      continue;
    }
    if (existing.kind !== type.kind || existing.base !== type.base || existing.collation !== type.collation) {
      notes.push({
        object: key(type),
        message: `The ${type.kind}'s base type or kind changes: it is dropped and created again, which fails while a column uses it.`,
      });
      p.types.push({ kind: 'drop_type', type: existing }, { kind: 'create_type', type });
      continue;
    }
    const retyped = type.attributes.some((a) =>
      existing.attributes.some((b) => b.name === a.name && b.type !== a.type),
    );
    if (retyped)
      notes.push({
        object: key(type),
        message:
          'An attribute of the type changes its type: the server refuses it while a column uses the type.',
      });
    p.types.push({ kind: 'alter_type', before: existing, after: type });
  }
  for (const type of tgt) if (!wanted.has(key(type))) dropped.push(type);
  // Dependents first: a domain over another goes before it.
  const order = dependencyOrder(dropped, key, builtOn).reverse();
  p.dropTypes.unshift(...order.map((type) => ({ kind: 'drop_type' as const, type })));
}
