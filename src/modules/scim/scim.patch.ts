// PATCH requests (RFC 7644 §3.5.2) as Okta and Microsoft Entra ID send them, normalised to one list
// of (attribute, value) changes: `op` in any case ("Replace"), a value without a path whose keys may
// be dotted ("name.givenName") or nested, booleans as strings ("False"), and Entra's
// `emails[type eq "work"].value`. Attributes of the core schema the service does not keep (phone
// numbers, addresses, titles, the enterprise extension) are accepted and ignored, since identity
// providers send them by default; a path that names no attribute at all is 400 `invalidPath`.
import { ownEntry } from '../../core/own.ts';
import { ScimError, scimInvalid } from './scim.errors.ts';

export type PatchOp = 'add' | 'replace' | 'remove';

export interface PatchChange {
  op: PatchOp;
  /** The attribute, normalised: `userName`, `name.givenName`, `members`, … (see `normalisePath`). */
  path: string;
  /** For `members[value eq "x"]`: the one value the filter names. */
  filterValue?: string;
  value: unknown;
}

/** Core attributes identity providers send that the service does not keep. */
const IGNORED = new Set([
  'nickname',
  'title',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'profileurl',
  'phonenumbers',
  'addresses',
  'photos',
  'ims',
  'roles',
  'entitlements',
  'x509certificates',
  'name.middlename',
  'name.honorificprefix',
  'name.honorificsuffix',
]);

const KNOWN: Record<string, string> = {
  active: 'active',
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  'name.givenname': 'name.givenName',
  'name.familyname': 'name.familyName',
  'name.formatted': 'displayName',
  emails: 'emails',
  'emails.value': 'emails',
  members: 'members',
  password: 'password',
};

/** The attribute a path names, or `ignored`; throws invalidPath for one that names nothing. */
export function normalisePath(raw: string): { path: string; filterValue?: string } | 'ignored' {
  const text = raw.trim().replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '');
  if (/^urn:ietf:params:scim:schemas:extension:/i.test(text)) return 'ignored';
  // `emails[type eq "work"].value`, `members[value eq "id"]`
  const filtered = /^(\w+)\[\s*(\w+)\s+eq\s+"([^"]*)"\s*\](?:\.(\w+))?$/i.exec(text);
  if (filtered) {
    const [, attribute = '', key = '', value = '', sub] = filtered;
    const base = attribute.toLowerCase();
    if (base === 'members' && key.toLowerCase() === 'value') return { path: 'members', filterValue: value };
    if (base === 'emails' && (!sub || sub.toLowerCase() === 'value')) return { path: 'emails' };
    if (IGNORED.has(base)) return 'ignored';
    throw new ScimError(400, `The path "${raw}" names no attribute`, 'invalidPath');
  }
  const key = text.toLowerCase();
  const known = ownEntry(KNOWN, key);
  if (known) return { path: known };
  if (IGNORED.has(key) || IGNORED.has(key.split('.')[0] ?? '')) return 'ignored';
  throw new ScimError(400, `The path "${raw}" names no attribute`, 'invalidPath');
}

/** "True", "false", true: identity providers send booleans both ways. */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw scimInvalid(`"${attribute}" must be a boolean`);
}

/** The changes of a PATCH body, in order. */
export function patchChanges(body: unknown): PatchChange[] {
  const operations = (body as { Operations?: unknown } | null)?.Operations;
  if (!Array.isArray(operations) || operations.length === 0)
    throw scimInvalid('A PATCH needs a non-empty "Operations" list', 'invalidSyntax');
  const changes: PatchChange[] = [];
  for (const operation of operations as { op?: unknown; path?: unknown; value?: unknown }[]) {
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw scimInvalid(`Unknown PATCH op "${String(operation.op)}"`, 'invalidSyntax');
    if (typeof operation.path === 'string' && operation.path.trim() !== '') {
      const target = normalisePath(operation.path);
      if (target !== 'ignored') changes.push({ op, ...target, value: operation.value });
      continue;
    }
    if (op === 'remove') throw scimInvalid('A remove needs a path', 'noTarget');
    if (operation.value === null || typeof operation.value !== 'object' || Array.isArray(operation.value))
      throw scimInvalid('A PATCH without a path needs an object value', 'invalidSyntax');
    for (const [key, value] of flatten(operation.value as Record<string, unknown>)) {
      const target = normalisePath(key);
      if (target !== 'ignored') changes.push({ op, ...target, value });
    }
  }
  return changes;
}

/** `{name: {givenName}}` and `{"name.givenName": …}` alike, as dotted keys. */
function flatten(value: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(value).flatMap(([key, inner]): [string, unknown][] => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (key.toLowerCase() === 'name' && inner && typeof inner === 'object' && !Array.isArray(inner))
      return flatten(inner as Record<string, unknown>, path);
    return [[path, inner]];
  });
}

/** The e-mail of an `emails` value: a list of `{value, primary?}` or the bare text. */
export function emailOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const items = value as { value?: unknown; primary?: unknown }[];
    const chosen = items.find((item) => item.primary === true || item.primary === 'true') ?? items[0];
    return typeof chosen?.value === 'string' ? chosen.value : undefined;
  }
  return undefined;
}
