// TypeBox building blocks shared by every module's schemas: ids, timestamps, names, the error
// bodies of docs/contract.md §2 and the pagination envelope. One schema gives validation, type and OpenAPI.
// A schema with a `title` is a named component of /openapi.json (src/http/openapi.ts lifts it into
// components.schemas and refers to it), so request and response bodies carry a title: generated
// clients then read `Project`, not an anonymous inline type.
import { type Static, type TObject, type TSchema, Type } from 'typebox';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID v4' });

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'UTC, written YYYY-MM-DDThh:mm:ssZ',
  examples: ['2026-01-31T12:00:00Z'],
});

/**
 * `schema` or null; written as a type list so errors stay one per field (and the serializer needs
 * no trial of alternatives). Of a named schema the document shows `anyOf: [component, null]`.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, enum: values } = schema as { type?: string; enum?: unknown[] };
  if (!type) return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
  // An enum lists every value it takes: null must be one of them, or `null` fails the schema.
  const nullable = values ? { enum: [...values, null] } : {};
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...nullable });
}

/**
 * The object with every property that has a default left out of `required`: a client may omit it,
 * and the validator (Ajv with useDefaults) fills it in, so the handler's type keeps it required.
 */
export function OptionalDefaults<T extends TObject>(schema: T): T {
  const properties = schema.properties as Record<string, { default?: unknown }>;
  const required = (schema.required ?? []).filter((key) => properties[key]?.default === undefined);
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as {
    required?: string[];
  };
  if (required.length > 0) copy.required = required;
  else delete copy.required;
  return copy as T;
}

/**
 * `served` for validation, serialization and the handler's type; `documented` in /openapi.json. For
 * a value the server passes through as a handler made it (a run's result) while the document gives
 * clients its exact shapes: the serializer never drops or coerces a field the description missed.
 */
export function DocumentedAs<T extends TSchema>(documented: TSchema, served: T): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(served)) as T;
  Object.defineProperty(copy, DOCUMENTED_AS, { value: documented, enumerable: true });
  return copy;
}
/** The keyword that carries DocumentedAs's schema to src/http/openapi.ts. */
export const DOCUMENTED_AS = 'x-documented-as';

export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A display name: 1 to 100 characters, not only spaces. */
export const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

export const ErrorBody = Type.Object(
  { detail: Type.String() },
  { $id: 'Error', description: 'Every error but validation: a human-readable detail' },
);

export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
          description: 'Where: starts with body, query, path or header',
        }),
        msg: Type.String(),
        type: Type.String({
          description: 'Machine-readable kind, e.g. missing, extra_forbidden, json_invalid',
        }),
      }),
    ),
  },
  { $id: 'ValidationError' },
);

const ERROR_DESCRIPTIONS = {
  401: 'Not authenticated, or a bad, expired or revoked API key',
  403: 'Missing scope or role, or CSRF check failed',
  404: 'Not found, or not visible to the caller',
  409: 'Conflict with the current state',
  413: 'Request body larger than 1 MiB',
  415: 'Unsupported media type: the body is not of the media type the operation takes (application/json)',
  422: 'Validation error',
  502: 'Target database unreachable or failing',
} as const;

/** The error responses of a route, for its schema: `...errors(401, 403, 404)`. 422 is always added. */
export function errors(...statuses: (keyof typeof ERROR_DESCRIPTIONS)[]) {
  const out: Record<number, TSchema> = {
    422: Type.Ref('ValidationError', { description: ERROR_DESCRIPTIONS[422] }),
  };
  for (const status of statuses) {
    if (status !== 422) out[status] = Type.Ref('Error', { description: ERROR_DESCRIPTIONS[status] });
  }
  return out;
}

/** What every route that reads a body may answer before its handler runs (added by the OpenAPI hook). */
export const BODY_ERRORS = {
  413: Type.Ref('Error', { description: ERROR_DESCRIPTIONS[413] }),
  415: Type.Ref('Error', { description: ERROR_DESCRIPTIONS[415] }),
};

/** 204: typed `void` so that handlers call `reply.code(204).send()`. */
export const NoContent = Type.Unsafe<void>({ type: 'null', description: 'No content' });

/** The last page a list may ask for (docs/contract.md §1): a 20-digit page is no exact integer and reached the store as `1e+20`. */
export const MAX_PAGE = 1_000_000;

export const PageQuery = OptionalDefaults(
  Type.Object({
    page: Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: 1,
      description: `Page number, from 1 to ${MAX_PAGE.toLocaleString('en')}; past the last page, \`items\` is empty`,
    }),
    page_size: Type.Integer({
      minimum: 1,
      maximum: 200,
      default: 50,
      description: 'Items per page, 1 to 200 (over 100 counts as a heavy request)',
    }),
  }),
);
export type PageQuery = Static<typeof PageQuery>;

/** The one paged list envelope of docs/contract.md §1, named after its item: `Page(ProjectSchema)` is `ProjectPage`. */
export function Page<T extends TSchema>(item: T) {
  const name = (item as { title?: string }).title;
  if (name === undefined) throw new Error('A paged list needs a named item schema (give it a title)');
  return Type.Object(
    {
      items: Type.Array(item),
      total: Type.Integer({ minimum: 0, description: 'Items in all pages' }),
      page: Type.Integer({ minimum: 1 }),
      page_size: Type.Integer({ minimum: 1 }),
    },
    { title: `${name}Page`, description: `A page of ${name} items, newest first` },
  );
}

export interface PageOf<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** The envelope of one page: the rows a service found for `paging`, answered through `toItem`. */
export function pageOf<Item>(paging: PageQuery, found: { rows: Item[]; total: number }): PageOf<Item>;
export function pageOf<Row, Item>(
  paging: PageQuery,
  found: { rows: Row[]; total: number },
  toItem: (row: Row) => Item,
): PageOf<Item>;
export function pageOf<Row, Item>(
  paging: PageQuery,
  found: { rows: Row[]; total: number },
  toItem?: (row: Row) => Item,
): PageOf<Row | Item> {
  const items = toItem ? found.rows.map((row) => toItem(row)) : found.rows;
  return { items, total: found.total, page: paging.page, page_size: paging.page_size };
}

export const IdParams = Type.Object({ id: Uuid });

/** API timestamps have no fractional seconds. */
export function toTimestamp(date: Date): string;
export function toTimestamp(date: Date | null): string | null;
export function toTimestamp(date: Date | null): string | null {
  return date === null ? null : `${date.toISOString().slice(0, 19)}Z`;
}
