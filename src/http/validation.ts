// Request validation with Ajv, and the translation of its errors to the 422 shape of docs/contract.md §2:
// `{loc: ["body", "name"], msg, type}`. Bodies are validated strictly (no type coercion: `"name": 123`
// is an error, not "123"); query strings, path and headers are text on the wire and are coerced.
// Unknown body fields are rejected, never silently dropped.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { ValidationItem } from '../core/errors.ts';

// ajv-formats is CommonJS; its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    allErrors: true,
    strict: false,
    ...options,
  });
  addFormats(ajv);
  return ajv;
}

export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const strict = createAjv({ coerceTypes: false });
  const coercing = createAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => {
    if (httpPart !== 'body') return coercing.compile(schema as object);
    const validate = strict.compile(schema as object);
    if (((schema as { required?: string[] }).required ?? []).length > 0) return validate;
    // Nothing in the body is required (`{"force": true}` or nothing), so a client may send no body at
    // all, or an empty one: it reads as `{}` (Fastify hands a missing body over as null).
    return (data: unknown) => {
      const value = data === null || data === undefined ? {} : data;
      return validate(value) ? { value } : { error: validate.errors ?? [] };
    };
  };
}

const LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

const FORMAT_TYPES: Record<string, [type: string, msg: string]> = {
  uuid: ['uuid_parsing', 'Input should be a valid UUID'],
  'date-time': ['datetime_parsing', 'Input should be a valid datetime with a time zone offset'],
  email: ['value_error', 'Input should be a valid email address'],
  uri: ['url_parsing', 'Input should be a valid URL'],
};

function describe(error: ErrorObject): { field?: string; type: string; msg: string } {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: String(p.missingProperty), type: 'missing', msg: 'Field required' };
    case 'additionalProperties':
      return {
        field: String(p.additionalProperty),
        type: 'extra_forbidden',
        msg: 'Extra inputs are not permitted',
      };
    case 'type': {
      const type = String(p.type).replace(/,null$/, '');
      const name =
        { integer: 'int', number: 'float', boolean: 'bool', object: 'dict', array: 'list' }[type] ?? type;
      return { type: `${name}_type`, msg: `Input should be a valid ${type}` };
    }
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${p.limit} character(s)` };
    case 'maxLength':
      return { type: 'string_too_long', msg: `String should have at most ${p.limit} character(s)` };
    case 'pattern':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${p.pattern}'` };
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${p.limit}` };
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${p.limit}` };
    case 'minItems':
      return { type: 'too_short', msg: `List should have at least ${p.limit} item(s)` };
    case 'maxItems':
      return { type: 'too_long', msg: `List should have at most ${p.limit} item(s)` };
    case 'uniqueItems':
      return { type: 'value_error', msg: 'List items should be unique' };
    case 'enum':
      return {
        type: 'enum',
        msg: `Input should be ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`,
      };
    case 'format': {
      const [type, msg] = FORMAT_TYPES[String(p.format)] ?? [
        'value_error',
        `Input should match format '${p.format}'`,
      ];
      return { type, msg };
    }
    default:
      return { type: 'value_error', msg: error.message ?? 'Invalid value' };
  }
}

/**
 * Items one 422 lists at most: a body of 50,000 undeclared keys made 50,000 items (a 4.5 MB answer
 * to a 0.5 MB request); the first ones say what is wrong as well.
 */
export const MAX_VALIDATION_ITEMS = 100;

export function validationItems(errors: ErrorObject[], context: string | undefined): ValidationItem[] {
  const root = LOCATION[context ?? 'body'] ?? 'body';
  return errors.slice(0, MAX_VALIDATION_ITEMS).map((error) => {
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((part) => {
        const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
        return /^\d+$/.test(key) ? Number(key) : key;
      });
    const { field, type, msg } = describe(error);
    return { loc: [root, ...path, ...(field === undefined ? [] : [field])], msg, type };
  });
}
