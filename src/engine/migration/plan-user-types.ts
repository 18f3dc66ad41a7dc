// Domains and composite types: created with the other types, before the tables whose columns use
// them (a domain over an enum after the enum, a domain or composite over another after it);
// dropped after those tables, before the enums they may be built on. A change that keeps the kind
// and the base type is made in place (alter_type); another base type or kind means the type goes
// and comes back, which the server refuses while a column uses it: the plan says so in a note.
import type { UserTypeModel } from '../schema/objects.ts';
import { dependencyOrder } from './dependency-order.ts';
import type { Phases } from './plan-tables.ts';
import type { PlanNote } from './plan-types.ts';

const key = (t: UserTypeModel) => `${t.schema}.${t.name}`;
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
