// Request bodies an attacker sends to make the service work hard or look in the wrong place:
// nested far past the bound, wide (many keys, long arrays), as large as the body limit allows and
// past it, and naming what every JavaScript object inherits (`__proto__`, `constructor`, `toString`)
// as keys at every level and as the values of every text field (a transformer, a method, a column).
// Built from a body the operation's schema describes, so that they get as far into it as they can.

/** Objects and arrays inside one another, far past the 32 levels docs/contract.md §1 allows. */
export const DEEP_LEVELS = 50_000;
/** Keys of the wide object and items of the wide arrays. */
export const WIDE = 50_000;
const INHERITED = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];

export interface HostileBody {
  name: string;
  /** The body as sent, JSON text (built by hand where JSON.stringify cannot say it). */
  text: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `value` with `change` applied to every string in it, keys kept. */
function mapStrings(value: Json, change: (text: string) => Json): Json {
  if (typeof value === 'string') return change(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, change)]));
  return value;
}

/**
 * `value` with every outermost array made `WIDE` items long (its first item repeated, not widened
 * again: nested arrays would multiply to billions of items).
 */
function widenArrays(value: Json): Json {
  if (Array.isArray(value)) return Array.from({ length: WIDE }, () => value[0] ?? 'x');
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, widenArrays(v)]));
  return value;
}

/** JSON text of `value` with the inherited names added as keys to every object in it. */
function withInheritedKeys(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(withInheritedKeys).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const own = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${withInheritedKeys(v)}`);
    const inherited = INHERITED.map((name) => `${JSON.stringify(name)}:{"polluted":true}`);
    return `{${[...own, ...inherited].join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hostile bodies of an operation whose schema gave `sample` (an object, or nothing). */
export function hostileBodies(sample: unknown, bodyLimit: number): HostileBody[] {
  const base = (sample !== null && typeof sample === 'object' && !Array.isArray(sample) ? sample : {}) as {
    [key: string]: Json;
  };
  const fields = JSON.stringify(base).slice(1, -1);
  const plus = (extra: string) => `{${fields}${fields ? ',' : ''}${extra}}`;
  const wideKeys = Array.from({ length: WIDE }, (_, i) => `"f${i}":0`).join(',');
  // Each text field as long as the body limit allows (the whole body stays under it).
  const strings = Math.max(1, JSON.stringify(base).match(/"[^"]*"\s*:\s*"/g)?.length ?? 1);
  const long = 'a'.repeat(Math.floor((bodyLimit - 4096) / strings));
  return [
    { name: 'deep', text: plus(`"deep":${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}`) },
    { name: 'deep objects', text: `${'{"a":'.repeat(DEEP_LEVELS)}0${'}'.repeat(DEEP_LEVELS)}` },
    { name: 'at the depth bound', text: plus(`"deep":${'['.repeat(31)}${']'.repeat(31)}`) },
    { name: 'wide object', text: plus(wideKeys) },
    { name: 'wide arrays', text: JSON.stringify(widenArrays(base)) },
    { name: 'huge text fields', text: JSON.stringify(mapStrings(base, () => long)) },
    { name: 'over the body limit', text: plus(`"pad":"${'a'.repeat(bodyLimit)}"`) },
    { name: 'inherited names as keys', text: withInheritedKeys(base) },
    ...INHERITED.map((name) => ({
      name: `${name} as every text value`,
      text: JSON.stringify(mapStrings(base, () => name)),
    })),
  ];
}
