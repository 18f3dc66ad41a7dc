// fast-check arbitraries derived from the service's own OpenAPI description, for fuzzing every
// operation with valid, boundary and invalid values of its declared parameters and body. Values that
// would reach outside the machine (hosts, URLs) are pinned to the loopback: the tests never touch
// another host.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface OpenApiOperation {
  operationId?: string;
  parameters?: { name: string; in: 'path' | 'query' | 'header'; schema?: JsonSchema; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** Names whose values would leave the machine if they were random: the loopback or nonsense only. */
const OUTBOUND = /host|url|uri|endpoint|issuer|server/i;
const OUTBOUND_VALUES = [
  '127.0.0.1',
  'localhost',
  'http://127.0.0.1:9/hook',
  'https://127.0.0.1:9/',
  'not a url',
  '',
];

/** Strings that have broken parsers elsewhere: empty, huge, control characters, SQL and JSON bits. */
const NASTY_STRINGS = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a'.repeat(5000),
  "'; drop table users; --",
  '{"a":',
  '../../etc/passwd',
  '\u202e\uffff',
  '00000000-0000-4000-8000-000000000000',
);

export function createArbitraries(doc: OpenApiDocument, knownIds: readonly string[]) {
  const resolve = (schema: JsonSchema): JsonSchema => {
    if (!schema.$ref) return schema;
    const name = schema.$ref.split('/').pop() ?? '';
    return doc.components?.schemas?.[name] ?? {};
  };

  const ids = fc.oneof(
    fc.constantFrom(...(knownIds.length > 0 ? knownIds : ['00000000-0000-4000-8000-000000000000'])),
    fc.uuid({ version: 4 }),
    fc.string({ maxLength: 40 }),
  );

  function arbitraryFor(raw: JsonSchema, name: string, depth: number): fc.Arbitrary<unknown> {
    const schema = resolve(raw);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), fc.string({ maxLength: 8 }));
    const union = schema.anyOf ?? schema.oneOf;
    if (union && union.length > 0) return fc.oneof(...union.map((s) => arbitraryFor(s, name, depth)));
    if (schema.allOf && schema.allOf.length > 0) return arbitraryFor(schema.allOf[0] ?? {}, name, depth);
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
    const nullable = Array.isArray(schema.type) && schema.type.includes('null');
    const value = ((): fc.Arbitrary<unknown> => {
      if (OUTBOUND.test(name)) return fc.constantFrom(...OUTBOUND_VALUES);
      switch (type) {
        case 'integer':
        case 'number': {
          const min = schema.minimum ?? -1_000;
          const max = schema.maximum ?? 1_000_000;
          return fc.oneof(
            fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }),
            fc.constantFrom(min - 1, max + 1, 0, -1, 2 ** 53),
            type === 'number' ? fc.double({ noNaN: true }) : fc.constant(1.5),
          );
        }
        case 'boolean':
          return fc.boolean();
        case 'array':
          return depth > 3
            ? fc.constant([])
            : fc.array(arbitraryFor(schema.items ?? {}, name, depth + 1), {
                maxLength: Math.min(schema.maxItems ?? 4, 4),
              });
        case 'object':
          return depth > 3 ? fc.constant({}) : bodyOf(schema, depth + 1);
        case 'string':
          if (schema.format === 'uuid' || /(^|_)id$/.test(name)) return ids;
          if (schema.format === 'date-time')
            return fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string(),
            );
          if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.string());
          return fc.oneof(
            fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 200) }),
            NASTY_STRINGS,
          );
        default:
          return fc.anything({ maxDepth: 2 });
      }
    })();
    return nullable ? fc.option(value, { nil: null }) : value;
  }

  /** An object of the schema's properties: the required ones mostly, the others sometimes, and sometimes one it does not declare. */
  function bodyOf(raw: JsonSchema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
    const schema = resolve(raw);
    const properties = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const fields = properties.map(([name, property]) =>
      fc
        .tuple(fc.integer({ min: 0, max: 9 }), arbitraryFor(property, name, depth))
        .map(([roll, value]) => (roll < (required.has(name) ? 9 : 5) ? [[name, value] as const] : [])),
    );
    return fc
      .tuple(
        fc.tuple(...fields),
        fc.option(fc.tuple(fc.string({ maxLength: 10 }), fc.anything({ maxDepth: 1 })), { freq: 6 }),
      )
      .map(([chosen, extra]) => {
        const body: Record<string, unknown> = Object.fromEntries(chosen.flat());
        if (extra) body[extra[0]] = extra[1];
        return body;
      });
  }

  /** A request for the operation: its path with parameters filled, a query string and maybe a body. */
  function requestOf(path: string, operation: OpenApiOperation) {
    const parameters = operation.parameters ?? [];
    const pathParams = parameters.filter((p) => p.in === 'path');
    const queryParams = parameters.filter((p) => p.in === 'query');
    const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
    return fc
      .record({
        path: fc.tuple(...pathParams.map((p) => (p.schema ? arbitraryFor(p.schema, p.name, 0) : ids))),
        query: fc.tuple(
          ...queryParams.map((p) => fc.option(arbitraryFor(p.schema ?? {}, p.name, 0), { freq: 2 })),
        ),
        body: bodySchema
          ? fc.oneof(
              { weight: 8, arbitrary: bodyOf(bodySchema) },
              { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
            )
          : fc.constant(undefined),
      })
      .map(({ path: values, query, body }) => {
        let url = path;
        pathParams.forEach((p, i) => {
          url = url.replace(`{${p.name}}`, encodeURIComponent(String(values[i])));
        });
        const search = new URLSearchParams();
        queryParams.forEach((p, i) => {
          const value = query[i];
          if (value !== null && value !== undefined)
            search.set(p.name, typeof value === 'string' ? value : JSON.stringify(value));
        });
        const qs = search.toString();
        return { url: qs ? `${url}?${qs}` : url, body };
      });
  }

  return { requestOf };
}
