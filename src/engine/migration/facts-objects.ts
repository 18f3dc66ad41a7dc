// The facts of operations on objects beyond tables (schemas, views, routines, triggers,
// extensions): none of them touches rows, so lint sees them as schema objects named by kind.

import type { MigrationOperation } from './operations.ts';
import type { StatementFact } from './statement-fact.ts';

const named = (item: { schema: string | null; name: string }) =>
  item.schema === null ? item.name : `${item.schema}.${item.name}`;

export function objectFacts(op: MigrationOperation): StatementFact[] {
  const fact = (object: string): StatementFact[] => [{ action: 'schema_object', object }];
  switch (op.kind) {
    case 'alter_extension':
      return fact(`extension ${op.name}`);
    case 'create_schema':
    case 'drop_schema':
      return fact(`schema ${op.schema.name}`);
    case 'create_collation':
    case 'drop_collation':
      return fact(`collation ${op.collation.schema}.${op.collation.name}`);
    case 'create_type':
    case 'drop_type':
      return fact(`${op.type.kind === 'domain' ? 'domain' : 'type'} ${op.type.schema}.${op.type.name}`);
    case 'alter_type':
      return fact(`${op.after.kind === 'domain' ? 'domain' : 'type'} ${op.after.schema}.${op.after.name}`);
    case 'comment_object':
      return fact(`comment on ${op.target.type} ${named(op.target)}`);
    case 'create_view':
    case 'drop_view': {
      const what = `${op.view.materialized ? 'materialized view' : 'view'} ${named(op.view)}`;
      const change =
        op.kind === 'drop_view'
          ? op.view.materialized
            ? 'drop_materialized_view'
            : 'drop_view'
          : op.view.materialized
            ? 'create_materialized_view'
            : undefined;
      return [{ action: 'schema_object', object: what, key: named(op.view), ...(change ? { change } : {}) }];
    }
    case 'replace_view':
      return fact(`view ${named(op.after)}`);
    case 'create_routine':
      return fact(`${op.routine.kind} ${named(op.routine)}`);
    case 'drop_routine':
      return [
        {
          action: 'schema_object',
          object: `${op.routine.kind} ${named(op.routine)}`,
          change: 'drop_routine',
          key: named(op.routine),
        },
      ];
    case 'replace_routine':
      return [
        {
          action: 'schema_object',
          object: `${op.after.kind} ${named(op.after)}`,
          change: 'replace_routine',
          key: named(op.after),
        },
      ];
    case 'create_trigger':
    case 'drop_trigger':
    case 'set_trigger_state':
      return fact(
        `trigger ${op.trigger.name} on ${named({ schema: op.trigger.schema, name: op.trigger.table })}`,
      );
    case 'set_row_security':
      return [
        {
          action: 'schema_object',
          object: `row security of ${named(op.table)}`,
          key: named(op.table),
          ...(op.before.enabled && !op.after.enabled ? { change: 'disable_row_security' as const } : {}),
        },
      ];
    case 'rebuild_table':
      return [{ action: 'data_change', table: { schema: op.after.schema, name: op.after.name } }];
    case 'move_column':
    case 'set_table_options':
    case 'set_table_storage':
      return fact(`options of ${named(op.table)}`);
    case 'set_partitioning':
      return fact(`partitioning of ${named(op.table)}`);
    case 'create_policy':
    case 'drop_policy':
      return fact(`policy ${op.policy.name} on ${named(op.table)}`);
    case 'attach_partition':
      return [{ action: 'schema_object', object: `partition ${named(op.table)} of ${named(op.parent)}` }];
    case 'detach_partition':
      return [
        {
          action: 'schema_object',
          object: `partition ${named(op.table)} of ${named(op.parent)}`,
          change: 'detach_partition',
          key: named(op.table),
        },
      ];
    case 'inherit':
    case 'no_inherit':
      return [
        { action: 'schema_object', object: `inheritance of ${named(op.table)} from ${named(op.parent)}` },
      ];
    default:
      return [{ action: 'other', statement: op.kind }];
  }
}
