// Anonymization (docs/contract.md §9.2): request bodies, the config resource, the PII scan and the preview.
import { type Static, Type } from 'typebox';
import { FAKE_KINDS } from '../../engine/anonymize/fake.ts';
import { PII_CATEGORIES } from '../../engine/anonymize/pii.ts';
import { TRANSFORMER_KINDS, type TransformerKind } from '../../engine/anonymize/rules.ts';
import { Name, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { AnonymizeConfig } from '../../store/tables.ts';

const TRANSFORMER_HELP =
  `One of ${TRANSFORMER_KINDS.join(', ')} (an unknown one answers 422 naming it). Options of every ` +
  'transformer: `deterministic` (default true: a keyed HMAC of the input under the config key), ' +
  '`keep_null` (default true), `unique` (default false; implied on a unique column). Per transformer: ' +
  'constant `{value}`; choice `{values}`; hash `{length?}` (1..64 hex characters); mask ' +
  '`{keep_start?: 0, keep_end?: 4, char?: "*"}`; noise `{ratio}` (0 < ratio ≤ 10) for numbers, `{days}` ' +
  '(1..36500) for dates and timestamps; range `{min, max}`; generalize `{step}` for numbers, `{unit: ' +
  `"month"|"year"}\` for dates; fake \`{kind, locale?: "en"}\` with kind one of ${FAKE_KINDS.join(', ')}; ` +
  'json `{paths: {"$.a.b": <transformer>}}`; null, scramble, shuffle and redact take none.';

const Rule = Type.Object(
  {
    table: Type.String({
      minLength: 1,
      maxLength: 300,
      description: '`schema.table` or a bare name (PostgreSQL: in `public`)',
    }),
    column: Type.String({ minLength: 1, maxLength: 200 }),
    transformer: Type.String({ minLength: 1, maxLength: 40, description: TRANSFORMER_HELP }),
    options: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'The options of the transformer' }),
    ),
  },
  { additionalProperties: false, title: 'AnonymizeRule' },
);

const Rules = Type.Array(Rule, { maxItems: 2000 });

const Key = Type.String({
  minLength: 16,
  maxLength: 512,
  description:
    'The secret of the deterministic transformers (write-only: never returned). Generated when absent; ' +
    'replacing it changes every deterministic output.',
});

const Strict = Type.Boolean({
  description: 'Refuse a run (409 naming them) while a column the PII scan reports is not covered by a rule',
});

export const CreateConfigBody = Type.Object(
  {
    project_id: Uuid,
    connection_id: Uuid,
    name: Name,
    rules: Rules,
    key: Type.Optional(Key),
    strict: Type.Optional(Strict),
  },
  { title: 'CreateAnonymizeConfigRequest', additionalProperties: false },
);
export type CreateConfigBody = Static<typeof CreateConfigBody>;

export const EditConfigBody = Type.Object(
  {
    name: Type.Optional(Name),
    rules: Type.Optional(Rules),
    key: Type.Optional(Key),
    strict: Type.Optional(Strict),
  },
  { title: 'UpdateAnonymizeConfigRequest', additionalProperties: false },
);
export type EditConfigBody = Static<typeof EditConfigBody>;

export const ConfigListQuery = Type.Intersect([PageQuery, Type.Object({ project_id: Uuid })]);

const ColumnAddress = Type.Object({ table: Type.String(), column: Type.String() });

export const ConfigSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    connection_id: Uuid,
    name: Type.String(),
    rules: Type.Array(
      Type.Object({
        table: Type.String({
          description: 'As the schema names it: `schema.table` (PostgreSQL), `table` (MySQL)',
        }),
        column: Type.String(),
        transformer: StringEnum(TRANSFORMER_KINDS),
        options: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
    propagated: Type.Array(
      Type.Object({
        table: Type.String(),
        column: Type.String(),
        from: ColumnAddress,
        via: Type.String({ description: 'The foreign key' }),
      }),
      {
        description:
          'Columns that reference a key with a rule: the same rule applies to them, so references still match',
      },
    ),
    strict: Type.Boolean(),
    has_key: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'AnonymizeConfig' },
);

export function toConfigResponse(config: AnonymizeConfig) {
  return {
    id: config.id,
    project_id: config.project_id,
    connection_id: config.connection_id,
    name: config.name,
    rules: config.rules.map(({ table, column, transformer, options }) => ({
      table,
      column,
      // Stored rules passed checkTransformer, which admits only these.
      transformer: transformer as TransformerKind,
      options: options ?? {},
    })),
    propagated: config.propagated,
    strict: config.strict,
    has_key: config.key_sealed.length > 0,
    created_at: toTimestamp(config.created_at),
    updated_at: toTimestamp(config.updated_at),
  };
}

export const PiiScanSchema = Type.Object(
  {
    columns: Type.Array(
      Type.Object({
        table: Type.String(),
        column: Type.String(),
        category: StringEnum(PII_CATEGORIES),
        evidence: StringEnum(['name', 'values'] as const),
        covered: Type.Boolean({ description: 'A rule (its own or through a foreign key) masks it' }),
      }),
    ),
  },
  { title: 'AnonymizePiiScan' },
);
export type PiiScan = Static<typeof PiiScanSchema>;

export const PreviewBody = Type.Object(
  {
    rows: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Sampled rows per rule (default 10)' }),
    ),
  },
  { title: 'AnonymizePreviewRequest', additionalProperties: false },
);
export type PreviewBody = Static<typeof PreviewBody>;

export const PreviewSchema = Type.Object(
  {
    samples: Type.Array(
      Type.Object({
        table: Type.String(),
        column: Type.String(),
        before: Type.Array(Type.Unknown()),
        after: Type.Array(Type.Unknown()),
      }),
    ),
  },
  { title: 'AnonymizePreview' },
);
export type Preview = Static<typeof PreviewSchema>;
