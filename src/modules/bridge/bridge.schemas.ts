// Bridge (docs/contract.md §9.3): the body of POST /projects/{pid}/bridge/run. The answer is a run (runs.schemas.ts).
import { type Static, Type } from 'typebox';
import { MAX_FILTER_LENGTH } from '../../engine/bridge/filter-check.ts';
import { Nullable, StringEnum, Uuid } from '../../http/schemas.ts';

export const BRIDGE_MODES = ['replace', 'append', 'upsert'] as const;

const TableName = Type.String({
  minLength: 1,
  maxLength: 300,
  description: '`schema.table`, or a bare table name',
});
const Condition = Type.String({
  minLength: 1,
  maxLength: MAX_FILTER_LENGTH,
  description:
    "One boolean SQL expression over the table's columns, in the source's SQL: columns (bare, or qualified by " +
    "the table's own name), literals, comparison, boolean and arithmetic operators, IN, BETWEEN, LIKE, IS [NOT] " +
    'NULL, CASE, casts and the functions lower, upper, length, char_length, abs, round, floor, ceil, ceiling, mod, ' +
    'trim, btrim, ltrim, rtrim, substring, substr, left, right, replace, md5, coalesce, nullif, greatest, least. ' +
    `At most ${MAX_FILTER_LENGTH.toLocaleString('en')} characters. The text must parse alone as one complete ` +
    "expression; the copy writes the expression back from its parse, never the text as sent. A MySQL source's " +
    'condition is read under its sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES), read when the copy is asked for ' +
    'and again when it runs (a run under another sql_mode fails, nothing written). Anything else (subqueries, ' +
    'other functions, comments on MySQL, a second statement, text past the expression) is refused with 422.',
});

export const BridgeRunBody = Type.Object(
  {
    source_connection_id: Uuid,
    target_connection_id: Uuid,
    tables: Type.Optional(
      Type.Array(TableName, {
        maxItems: 10_000,
        description:
          'Tables to copy; default: every source table the target has (with create_tables, every source table)',
      }),
    ),
    mode: Type.Optional(
      StringEnum(BRIDGE_MODES, {
        description:
          '`replace` (default): the rows of the copied tables are removed first (TRUNCATE where the engine can do ' +
          'it in the transaction); `append`: rows are added; `upsert`: rows are inserted or, by primary key, updated',
      }),
    ),
    filters: Type.Optional(
      Type.Record(TableName, Condition, {
        description: 'Per copied table, a condition its copied rows meet',
      }),
    ),
    subset: Type.Optional(
      Type.Object(
        {
          table: TableName,
          where: Type.Optional(Condition),
          percent: Type.Optional(
            Type.Number({
              exclusiveMinimum: 0,
              maximum: 100,
              description:
                'Share of the start rows, sampled by a hash of their key and of the subset asked (the same request, the same rows)',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Start from these rows of `table`; keep the rows that reference them (recursively) and the rows every kept ' +
            'row references (recursively); a parent pulled in does not pull in its other children; cycles end the walk',
        },
      ),
    ),
    anonymize_config_id: Type.Optional(
      Nullable(
        Type.String({
          format: 'uuid',
          description:
            'An anonymization config of this project (of any of its connections; 404 when unknown): its rules are ' +
            "checked against the source's schema when the copy is asked for (422 naming what does not match; with " +
            '`strict`, 409 naming personal columns of the source no rule covers) and applied in flight, so no ' +
            'un-anonymised value is written to the target. `shuffle` permutes values within batches of about 1 MB ' +
            'of rows. The approval binds the config (rules and key id)',
        }),
      ),
    ),
    create_tables: Type.Optional(
      Type.Boolean({
        description:
          "Create the copied tables the target lacks from the source's schema (types mapped between engines, see the README)",
      }),
    ),
  },
  { title: 'BridgeRunRequest', additionalProperties: false },
);
export type BridgeRunBody = Static<typeof BridgeRunBody>;
