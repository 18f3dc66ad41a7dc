// SCIM filters (RFC 7644 §3.4.2.2), parsed by scim2-parse-filter and turned into SQL on the store,
// so a filter never loads an organization's users to test them in memory. Supported: eq, ne, co, sw,
// pr, and, or on the attributes each resource lists; text attributes with `caseExact: false` in RFC
// 7643 (userName, emails, displayName) compare case-insensitively. Anything else is 400
// `invalidFilter`, as the contract says.
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { type Filter, parse } from 'scim2-parse-filter';
import { ownEntry } from '../../core/own.ts';
import { ScimError } from './scim.errors.ts';

/** How a SCIM attribute maps to a column: case-insensitive text, exact text, or a boolean. */
export interface FilterAttribute {
  column: string;
  kind: 'ci' | 'exact' | 'bool';
}

export type FilterAttributes = Record<string, FilterAttribute>;

const invalid = (detail: string) => new ScimError(400, detail, 'invalidFilter');

export function parseFilter(text: string): Filter {
  try {
    return parse(text);
  } catch {
    throw invalid(`The filter cannot be parsed: ${text}`);
  }
}

/** Escapes LIKE's wildcards, so a filter value matches as text. */
const likeEscaped = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

// biome-ignore lint/suspicious/noExplicitAny: the expression builder of whichever table is filtered
type Builder = ExpressionBuilder<any, any>;

export function filterToSql(filter: Filter, attributes: FilterAttributes) {
  return (eb: Builder): Expression<SqlBool> => translate(eb, filter, attributes);
}

/** The attribute a filter names: the table's own entries only (a filter on `constructor` is unsupported). */
function attributeOf(path: string, attributes: FilterAttributes): FilterAttribute {
  const found = ownEntry(attributes, path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:\w+:/, ''));
  const attribute = found ?? ownEntry(attributes, path.toLowerCase());
  if (!attribute) throw invalid(`Filtering on "${path}" is not supported`);
  return attribute;
}

function translate(eb: Builder, filter: Filter, attributes: FilterAttributes): Expression<SqlBool> {
  switch (filter.op) {
    case 'and':
      return eb.and(filter.filters.map((f) => translate(eb, f, attributes)));
    case 'or':
      return eb.or(filter.filters.map((f) => translate(eb, f, attributes)));
    case '[]': {
      // `emails[value eq "x"]`: the sub-attribute of a multi-valued one, which maps like its parent.
      const inner = filter.valFilter;
      if (inner.op !== 'eq' && inner.op !== 'co' && inner.op !== 'sw')
        throw invalid('Only eq, co and sw are supported inside [ ]');
      return translate(eb, { ...inner, attrPath: `${filter.attrPath}.${inner.attrPath}` }, attributes);
    }
    case 'pr': {
      const { column, kind } = attributeOf(filter.attrPath, attributes);
      if (kind === 'bool') return eb(column, 'is not', null);
      return eb.and([eb(column, 'is not', null), eb(column, '!=', '')]);
    }
    case 'eq':
    case 'ne':
    case 'co':
    case 'sw':
      return compare(eb, filter.op, attributeOf(filter.attrPath, attributes), filter.compValue);
    default:
      throw invalid(`The operator "${filter.op}" is not supported`);
  }
}

function compare(
  eb: Builder,
  op: 'eq' | 'ne' | 'co' | 'sw',
  { column, kind }: FilterAttribute,
  value: boolean | null | number | string,
): Expression<SqlBool> {
  if (kind === 'bool') {
    const wanted = typeof value === 'string' ? value.toLowerCase() === 'true' : value === true;
    if (op !== 'eq' && op !== 'ne') throw invalid(`"${op}" does not apply to a boolean`);
    return eb(column, op === 'eq' ? '=' : '!=', wanted);
  }
  if (typeof value !== 'string') throw invalid(`"${column}" is compared with text`);
  const subject = kind === 'ci' ? sql<string>`lower(${sql.ref(column)})` : sql<string>`${sql.ref(column)}`;
  const text = kind === 'ci' ? value.toLowerCase() : value;
  switch (op) {
    case 'eq':
      return eb(subject, '=', text);
    case 'ne':
      return eb(subject, '!=', text);
    case 'co':
      return eb(subject, 'like', `%${likeEscaped(text)}%`);
    case 'sw':
      return eb(subject, 'like', `${likeEscaped(text)}%`);
  }
}
