// The plan's final order, from what depends on what. The phases of plan.ts put each kind of
// statement where most of its dependencies already are (types, then functions, then tables…), but
// a real schema crosses those lines: a function returns SETOF a table's row type (so it comes after
// the table, and goes before it), a SQL-standard function body calls a function of another schema
// (after its callee), a table's default calls a function that takes another table's row. Each
// operation says which objects it creates or drops and which ones its object reads (the catalog's
// dependency edges, objects.ts, and the types its columns name); then a stable topological sort
// puts every creation after what it reads and every drop before the drops of what it read. Whatever
// no edge constrains keeps the phases' order, so a plan without such crossings is unchanged, and
// the rollback (each statement's inverse, last first) is ordered the same way backwards.
import { type ColumnModel, type TableModel, tableKey } from '../schema/model.ts';
import { type DependencyRef, dependencyKey, objectKey, type RoutineModel } from '../schema/objects.ts';
import type { MigrationOperation } from './operations.ts';
import { type ExtraEdges, splitRoutineUses } from './plan-cycles.ts';

interface OperationEdges {
  /** Keys (dependencyKey form, `col:` for a column) of the objects the operation creates. */
  creates: string[];
  /** Keys of the objects it drops (a column retyped is dropped and created, for what reads it). */
  drops: string[];
  /** Keys it reads once it has run: created before it. */
  needs: string[];
  /** Keys it read until it ran: dropped after it. */
  held: string[];
}

const NONE: OperationEdges = { creates: [], drops: [], needs: [], held: [] };

/** A relation and its row type (every table, view and sequence has one). */
export const relationKeys = (item: { schema: string | null; name: string }) => [
  `rel:${objectKey(item)}`,
  `type:${objectKey(item)}`,
  `type:${objectKey({ schema: item.schema, name: `_${item.name}` })}`,
];

const typeKeys = (item: { schema: string | null; name: string }) => [
  `type:${objectKey(item)}`,
  `type:${objectKey({ schema: item.schema, name: `_${item.name}` })}`,
];

/** The key of one column, as a view or a SQL-standard body reads it. */
export const columnNodeKey = (table: { schema: string | null; name: string }, column: string) =>
  `col:${objectKey(table)}.${column}`;

/** Splits `a.b` on dots outside double quotes and unquotes each part (`"x""y"` → `x"y`). */
function identifierParts(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '"') {
      if (quoted && text[i + 1] === '"') {
        current += '"';
        i += 1;
      } else quoted = !quoted;
    } else if (char === '.' && !quoted) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

/**
 * The key of a user type a column or type definition names (`billing.money_amount`,
 * `public.mood[]`, `"Sales"."Region"(3)`), or null for a built-in one: with an empty search path
 * the catalog qualifies every type outside pg_catalog, so a name without a schema is built in.
 */
export function namedTypeKey(type: string | null): string | null {
  if (type === null) return null;
  const bare = type
    .trim()
    .replace(/(\[\d*\])+$/, '')
    .replace(/\([^()"]*\)$/, '');
  const parts = identifierParts(bare);
  if (parts.length !== 2) return null;
  return `type:${objectKey({ schema: parts[0]!, name: parts[1]! })}`;
}

const present = (key: string | null): key is string => key !== null;
const columnTypeKeys = (columns: ColumnModel[]) =>
  columns.map((column) => namedTypeKey(column.type)).filter(present);

function tableReads(table: TableModel): string[] {
  return [
    ...columnTypeKeys(table.columns),
    ...(table.routine_uses ?? []).map((use) => `routine:${use.routine}`),
    ...(table.inherits ?? []).map((parent) => `rel:${tableKey(parent)}`),
    ...(table.partitioning?.parent ? [`rel:${tableKey(table.partitioning.parent)}`] : []),
  ];
}

/**
 * A SQL-standard body (BEGIN ATOMIC) that reads a table's row type holds the table's rows in that
 * type: PostgreSQL refuses to retype a column of the table, or to add one with a default, under it
 * (a plain body, checked only when it runs, does not hold it). Its key, for what changes the rows.
 */
export const rowTypeKey = (table: { schema: string | null; name: string }) => `rowtype:${objectKey(table)}`;

const SQL_STANDARD_BODY = /\bBEGIN\s+ATOMIC\b/i;

/** The row types a routine's SQL-standard body holds (none for a body in a string). */
export function heldRowTypes(routine: RoutineModel): string[] {
  if (!SQL_STANDARD_BODY.test(routine.definition)) return [];
  return routine.depends_on
    .filter((ref) => ref.kind === 'type')
    .map((ref) => rowTypeKey({ schema: ref.schema, name: ref.name }));
}

/** A table rebuilt: the old one goes, and a partition dropped by the plan goes before it. */
const rebuiltKey = (table: { schema: string | null; name: string }) => `rebuilt:${objectKey(table)}`;

const parentsOf = (table: TableModel) => [
  ...(table.inherits ?? []),
  ...(table.partitioning?.parent ? [table.partitioning.parent] : []),
];

const refKeys = (refs: DependencyRef[]) =>
  refs.flatMap((ref) =>
    ref.column === null
      ? [dependencyKey(ref)]
      : [dependencyKey(ref), columnNodeKey({ schema: ref.schema, name: ref.name }, ref.column)],
  );

const routineReads = (routine: RoutineModel) => [...refKeys(routine.depends_on), ...heldRowTypes(routine)];

/** The tables (keys) that inherit a table's columns: partitions and children, at every depth. */
export type Descendants = Map<string, string[]>;

const REPLACES_COLUMN = new Set(['type', 'replace_generated', 'drop_expression']);

function edgesOf(op: MigrationOperation, descendants: Descendants): OperationEdges {
  const created = (creates: string[], needs: string[]) => ({ ...NONE, creates, needs });
  const dropped = (drops: string[], held: string[]) => ({ ...NONE, drops, held });
  const columnKeys = (table: { schema: string | null; name: string }, column: string) => [
    columnNodeKey(table, column),
    ...(descendants.get(tableKey(table)) ?? []).map((child) => `col:${child}.${column}`),
  ];
  switch (op.kind) {
    case 'create_table':
      return created(relationKeys(op.table), tableReads(op.table));
    case 'drop_table':
      return dropped(relationKeys(op.table), [
        ...tableReads(op.table),
        ...parentsOf(op.table).map(rebuiltKey),
      ]);
    // The new table takes the name (and row type) when the old one is renamed away; the old one
    // is dropped at the end, with the partitions still attached to it.
    case 'rebuild_table':
      return { ...created(relationKeys(op.after), tableReads(op.after)), drops: [rebuiltKey(op.before)] };
    case 'add_column': {
      // A default (or an identity, a generated value) fills the existing rows, in their row type.
      const fills = op.column.default !== null || op.column.identity !== null || op.column.generated !== null;
      const keys = [...columnKeys(op.table, op.column.name), ...(fills ? [rowTypeKey(op.table)] : [])];
      return {
        creates: keys,
        drops: fills ? [rowTypeKey(op.table)] : [],
        needs: columnTypeKeys([op.column]),
        held: [],
      };
    }
    case 'drop_column':
      return dropped(columnKeys(op.table, op.column.name), []);
    // Only a new type needs its type to exist: the other steps keep the column's own.
    case 'alter_column': {
      if (!REPLACES_COLUMN.has(op.change)) return NONE;
      const keys = [...columnKeys(op.table, op.before.name), rowTypeKey(op.table)];
      return { creates: keys, drops: keys, needs: columnTypeKeys([op.after]), held: [] };
    }
    case 'create_view':
      return created(relationKeys(op.view), refKeys(op.view.depends_on));
    case 'drop_view':
      return dropped(relationKeys(op.view), refKeys(op.view.depends_on));
    case 'replace_view':
      return { ...NONE, needs: refKeys(op.after.depends_on), held: refKeys(op.before.depends_on) };
    case 'create_routine':
      return created([`routine:${objectKey(op.routine)}`], routineReads(op.routine));
    case 'drop_routine':
      return dropped([`routine:${objectKey(op.routine)}`], routineReads(op.routine));
    case 'replace_routine':
      return { ...NONE, needs: routineReads(op.after), held: routineReads(op.before) };
    case 'create_trigger':
      return created(
        [],
        [
          `rel:${objectKey({ schema: op.trigger.schema, name: op.trigger.table })}`,
          ...refKeys(op.trigger.depends_on),
        ],
      );
    case 'drop_trigger':
      return dropped([], refKeys(op.trigger.depends_on));
    case 'create_enum':
      return created(typeKeys(op.enum), []);
    case 'drop_enum':
      return dropped(typeKeys(op.enum), []);
    // The type is swapped under its columns (a table dropped later still has its column moved):
    // what reads the columns (or holds their rows) goes before it, and comes back after it.
    case 'recreate_enum': {
      const columns = op.uses.flatMap((use) => [
        ...columnKeys(use.table, use.column.name),
        rowTypeKey(use.table),
      ]);
      return { creates: [...typeKeys(op.enum), ...columns], drops: columns, needs: [], held: [] };
    }
    case 'create_type':
    case 'drop_type': {
      const reads = [op.type.base, ...op.type.attributes.map((a) => a.type)]
        .map(namedTypeKey)
        .filter(present);
      return op.kind === 'create_type'
        ? created(typeKeys(op.type), reads)
        : dropped(typeKeys(op.type), reads);
    }
    case 'create_sequence':
      return created(relationKeys(op.sequence), []);
    case 'drop_sequence':
      return dropped(relationKeys(op.sequence), []);
    default:
      return NONE;
  }
}

/**
 * A binary min-heap of operation indexes by rank, then index: the ready operation to place next.
 */
class ReadyQueue {
  private readonly items: number[] = [];
  private readonly rank: number[];
  constructor(rank: number[]) {
    this.rank = rank;
  }
  private before(a: number, b: number): boolean {
    const [ra, rb] = [this.rank[a]!, this.rank[b]!];
    return ra < rb || (ra === rb && a < b);
  }
  get size(): number {
    return this.items.length;
  }
  push(value: number): void {
    const items = this.items;
    items.push(value);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(value, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = value;
  }
  pop(): number {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && this.before(items[right]!, items[left]!) ? right : left;
        if (!this.before(items[child]!, last)) break;
        items[i] = items[child]!;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

/**
 * Each operation's rank: its index, or the rank of a later operation it must precede as the drop
 * of a reader (a function going away before a column it read is retyped): such a drop is pulled up
 * to where it is needed rather than the change waiting for it, so that the change stays among the
 * steps around it. A creation is not pulled: what needs it waits for it.
 */
function pulledRanks(pulls: number[][], component: number[]): number[] {
  const rank = pulls.map((_, at) => at);
  const done = new Array<boolean>(pulls.length).fill(false);
  const visit = (start: number) => {
    // Iterative depth-first: a rank is known once those of the operations it precedes are.
    const stack: [number, number][] = [[start, 0]];
    done[start] = true;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const [at, next] = frame;
      const list = pulls[at]!;
      if (next < list.length) {
        frame[1] += 1;
        const then = list[next]!;
        if (component[then] === component[at]) continue;
        if (!done[then]) {
          done[then] = true;
          stack.push([then, 0]);
        }
        continue;
      }
      stack.pop();
      for (const then of list)
        if (component[then] !== component[at]) rank[at] = Math.min(rank[at]!, rank[then]!);
    }
  };
  for (let at = 0; at < pulls.length; at += 1) if (!done[at]) visit(at);
  return rank;
}

interface Graph {
  successors: number[][];
  /** The drops of readers that must come before a later operation (held edges), by operation. */
  pulls: number[][];
  component: number[];
  creators: Map<string, number[]>;
  droppers: Map<string, number[]>;
}

function buildGraph(
  operations: MigrationOperation[],
  descendants: Descendants,
  extra: ExtraEdges,
): Graph | null {
  const edges = operations.map((op) => {
    const edge = edgesOf(op, descendants);
    const more = extra.get(op);
    return more
      ? { ...edge, needs: [...edge.needs, ...more.needs], held: [...edge.held, ...more.held] }
      : edge;
  });
  const creators = new Map<string, number[]>();
  const droppers = new Map<string, number[]>();
  const index = (map: Map<string, number[]>, key: string, at: number) => {
    const list = map.get(key);
    if (list) list.push(at);
    else map.set(key, [at]);
  };
  edges.forEach((edge, at) => {
    for (const key of edge.creates) index(creators, key, at);
    for (const key of edge.drops) index(droppers, key, at);
  });
  if (creators.size === 0 && droppers.size === 0) return null;

  const successors: number[][] = operations.map(() => []);
  const pulls: number[][] = operations.map(() => []);
  const link = (first: number, then: number) => {
    if (first !== then) successors[first]!.push(then);
  };
  // A backup stays right before its drop, wherever the drop is pulled.
  const backups = new Map<string, number>();
  operations.forEach((op, at) => {
    if (op.kind === 'backup_table') backups.set(`table ${op.backup}`, at);
    if (op.kind === 'backup_column') backups.set(`column ${op.backup}`, at);
    const backup =
      op.kind === 'drop_table' && op.backup !== null
        ? backups.get(`table ${op.backup}`)
        : op.kind === 'drop_column' && op.backup !== null
          ? backups.get(`column ${op.backup.name}`)
          : undefined;
    if (backup !== undefined) {
      link(backup, at);
      pulls[backup]!.push(at);
    }
  });
  // The steps of one column (default off, type, default on…) keep their order.
  const lastStep = new Map<string, number>();
  operations.forEach((op, at) => {
    if (op.kind !== 'alter_column') return;
    const column = columnNodeKey(op.table, op.before.name);
    const previous = lastStep.get(column);
    if (previous !== undefined) link(previous, at);
    lastStep.set(column, at);
  });
  edges.forEach((edge, at) => {
    for (const key of new Set(edge.needs)) for (const create of creators.get(key) ?? []) link(create, at);
    // What it read is dropped after it, when it goes for good: an object dropped and created again
    // (a view recreated, which a lenient engine's views over it are replaced around) is ordered by
    // its creation; a retyped column by both.
    for (const key of new Set(edge.held))
      if (/^(col|rowtype|rebuilt):/.test(key) || !creators.has(key))
        for (const drop of droppers.get(key) ?? []) {
          link(at, drop);
          if (drop !== at) pulls[at]!.push(drop);
        }
  });
  return { successors, pulls, component: stronglyConnected(successors), creators, droppers };
}

/**
 * The operations reordered so that each creation follows the creations of what it reads and each
 * drop precedes the drops of what it read; otherwise in their given order. A table and a function
 * that read each other are split apart (plan-cycles.ts); the members of any other cycle keep their
 * given order among themselves.
 */
export function orderByDependencies(
  operations: MigrationOperation[],
  descendants: Descendants = new Map(),
): MigrationOperation[] {
  let ops = operations;
  let graph = buildGraph(ops, descendants, new Map());
  if (graph === null) return operations;
  const first = graph;
  const split = splitRoutineUses(ops, (at, routine) => {
    const others =
      ops[at]!.kind === 'create_table' ? first.creators.get(routine) : first.droppers.get(routine);
    return (others ?? []).some((other) => first.component[other] === first.component[at]);
  });
  if (split !== null) {
    ops = split.operations;
    graph = buildGraph(ops, descendants, split.extra)!;
  }
  const { successors, component } = graph;
  const rank = pulledRanks(graph.pulls, component);
  // A cycle keeps the given order among its members: its edges inside it are left out.
  const waiting = new Array<number>(ops.length).fill(0);
  successors.forEach((list, at) => {
    successors[at] = list.filter((then) => component[then] !== component[at]);
    for (const then of successors[at]!) waiting[then]! += 1;
  });
  const out: MigrationOperation[] = [];
  const ready = new ReadyQueue(rank);
  waiting.forEach((count, at) => {
    if (count === 0) ready.push(at);
  });
  while (ready.size > 0) {
    const at = ready.pop();
    out.push(ops[at]!);
    for (const then of successors[at]!) {
      waiting[then]! -= 1;
      if (waiting[then] === 0) ready.push(then);
    }
  }
  return out;
}

/** Tarjan's strongly connected components, without recursion: each node's component number. */
function stronglyConnected(successors: number[][]): number[] {
  const n = successors.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const component = new Array<number>(n).fill(-1);
  const stack: number[] = [];
  let counter = 0;
  let components = 0;
  for (let root = 0; root < n; root += 1) {
    if (index[root] !== -1) continue;
    const frames: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = true;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const [node, next] = frame;
      if (next < successors[node]!.length) {
        frame[1] += 1;
        const then = successors[node]![next]!;
        if (index[then] === -1) {
          index[then] = low[then] = counter++;
          stack.push(then);
          onStack[then] = true;
          frames.push([then, 0]);
        } else if (onStack[then]) low[node] = Math.min(low[node]!, index[then]!);
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[node]!);
      }
      if (low[node] === index[node]) {
        let member: number;
        do {
          member = stack.pop()!;
          onStack[member] = false;
          component[member] = components;
        } while (member !== node);
        components += 1;
      }
    }
  }
  return component;
}

/** Every table's descendants (partitions and inheritance children, at any depth), by table key. */
export function descendantsOf(tables: TableModel[]): Descendants {
  const children = new Map<string, Set<string>>();
  for (const table of tables) {
    const parents = [
      ...(table.inherits ?? []),
      ...(table.partitioning?.parent ? [table.partitioning.parent] : []),
    ];
    for (const parent of parents) {
      const list = children.get(tableKey(parent)) ?? new Set<string>();
      list.add(tableKey(table));
      children.set(tableKey(parent), list);
    }
  }
  const out: Descendants = new Map();
  const collect = (key: string, seen: Set<string>) => {
    for (const child of children.get(key) ?? [])
      if (!seen.has(child)) {
        seen.add(child);
        collect(child, seen);
      }
    return seen;
  };
  for (const key of children.keys()) out.set(key, [...collect(key, new Set())]);
  return out;
}
