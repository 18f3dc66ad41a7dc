// Seed scenarios (docs/contract.md §9.1): request bodies, the scenario resource and the preview.
import { type Static, Type } from 'typebox';
import {
  GENERATOR_KINDS,
  MAX_ROWS_PER_TABLE,
  MAX_TABLES,
  REFERENCE_DISTRIBUTIONS,
  type SeedDefinition,
} from '../../engine/seed/definition.ts';
import { FAKER_ARG_BOUNDS, FAKER_METHODS } from '../../engine/seed/faker-allow-list.ts';
import { Name, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { SeedScenario } from '../../store/tables.ts';

const GENERATOR_HELP =
  `One of ${GENERATOR_KINDS.join(', ')} (an unknown kind answers 422 naming it). Every kind takes ` +
  '`null_ratio` (0..1; 0 on a NOT NULL column) and `unique`. Per kind: faker `{method: "person.firstName", ' +
  'args?}` (a data method of the faker library by its dotted path, from the allow-list of its modules: ' +
  `${Object.keys(FAKER_METHODS).join(', ')}; never a constructor, \`helpers\` or anything that is not a ` +
  'generating function; `args` are JSON within bounds: strings ≤ 1,000 characters, numbers ≤ 10^9 in size, ' +
  'lengths and counts (a number argument of string, lorem, word and finance methods; `length`, `count`, ' +
  '`*Count` options) ≤ 10,000, at most 10 arguments, arrays and objects of at most 100 entries and 4 levels; ' +
  'any generated value at most 64 KiB; reseeded once per block of 1,000 rows; 422 naming the column otherwise); ' +
  'sequence `{start?: 1, step?: 1}`; int `{min, max}`; float `{min, max, precision?}`; timestamp and date ' +
  '`{from, to}` (ISO 8601); choice `{values, weights?}`; constant `{value}`; template `{template: ' +
  '"{first_name}.{last_name}@example.com"}` (other columns of the row by name); reference `{distribution?: ' +
  '"uniform"|"zipf"}` (the default of a foreign-key column); default (left to the database: the column ' +
  'needs a default, identity or AUTO_INCREMENT); null.';

export const Generator = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 40, description: GENERATOR_HELP }),
    null_ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    unique: Type.Optional(Type.Boolean()),
    method: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'faker: `module.method` from the allow-list (see the kind)',
      }),
    ),
    args: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: FAKER_ARG_BOUNDS.args,
        description:
          'faker: the arguments, JSON within bounds (strings ≤ 1,000 characters, numbers ≤ 10^9 in size, lengths and counts ≤ 10,000)',
      }),
    ),
    start: Type.Optional(Type.Integer()),
    step: Type.Optional(Type.Integer()),
    min: Type.Optional(Type.Number()),
    max: Type.Optional(Type.Number()),
    precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 15 })),
    from: Type.Optional(Type.String({ maxLength: 40 })),
    to: Type.Optional(Type.String({ maxLength: 40 })),
    values: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, maxItems: 10_000 })),
    weights: Type.Optional(
      Type.Array(Type.Number({ minimum: 0, maximum: 1e9 }), {
        maxItems: 10_000,
        description: 'choice: one weight per value (a value is drawn by binary search over their sums)',
      }),
    ),
    value: Type.Optional(Type.Unknown()),
    template: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    distribution: Type.Optional(StringEnum(REFERENCE_DISTRIBUTIONS)),
  },
  { additionalProperties: false, title: 'SeedGenerator' },
);

const TableSpec = Type.Object(
  {
    table: Type.String({
      minLength: 1,
      maxLength: 300,
      description: '`schema.table` or a bare name (PostgreSQL: in `public`)',
    }),
    rows: Type.Integer({
      minimum: 0,
      maximum: MAX_ROWS_PER_TABLE,
      description: `Rows to write (0..${MAX_ROWS_PER_TABLE.toLocaleString('en')})`,
    }),
    columns: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Generator, {
        description: 'A generator per column; the others are inferred from their name and type',
      }),
    ),
  },
  { additionalProperties: false, title: 'SeedTable' },
);

export const Definition = Type.Object(
  {
    locale: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 20,
        pattern: '^[a-z]{2,3}(_[A-Za-z0-9]{2,8})*$',
        description:
          'The faker locale of names, cities, phones (`en`, `de`, `fr`, `pt_BR`, …); `en` when absent',
      }),
    ),
    tables: Type.Array(TableSpec, { minItems: 1, maxItems: MAX_TABLES }),
  },
  { additionalProperties: false, title: 'SeedDefinition' },
);

const Seed = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description:
    'Makes the rows deterministic: the same definition and seed on an empty target give the same rows, byte for byte',
});

export const CreateScenarioBody = Type.Object(
  { project_id: Uuid, connection_id: Uuid, name: Name, definition: Definition, seed: Seed },
  { title: 'CreateSeedScenarioRequest', additionalProperties: false },
);
export type CreateScenarioBody = Static<typeof CreateScenarioBody>;

export const EditScenarioBody = Type.Object(
  { name: Type.Optional(Name), definition: Type.Optional(Definition), seed: Type.Optional(Seed) },
  { title: 'UpdateSeedScenarioRequest', additionalProperties: false },
);
export type EditScenarioBody = Static<typeof EditScenarioBody>;

export const ScenarioListQuery = Type.Intersect([PageQuery, Type.Object({ project_id: Uuid })]);

export const ScenarioSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    connection_id: Uuid,
    name: Type.String(),
    definition: Definition,
    seed: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'SeedScenario' },
);

export function toScenarioResponse(scenario: SeedScenario) {
  return {
    id: scenario.id,
    project_id: scenario.project_id,
    connection_id: scenario.connection_id,
    name: scenario.name,
    definition: scenario.definition as Static<typeof Definition>,
    seed: Number(scenario.seed),
    created_at: toTimestamp(scenario.created_at),
    updated_at: toTimestamp(scenario.updated_at),
  };
}

export const PreviewSchema = Type.Object(
  {
    tables: Type.Array(
      Type.Object({
        table: Type.String({
          description: 'As the schema names it: `schema.table` (PostgreSQL), `table` (MySQL)',
        }),
        rows: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
          description:
            'The first rows a run writes (up to 10), as text the database reads; keys as a run would write them now',
        }),
      }),
    ),
    truncated: Type.Boolean({
      description:
        'True when the preview reached its bounds (1,000 rows or 1 MiB of values in all) and left later rows out',
    }),
  },
  { title: 'SeedPreview' },
);
export type Preview = Static<typeof PreviewSchema>;

export type { SeedDefinition };
