// Masking a connection's password in what a target database or its driver said. Servers do not
// quote passwords; a message carries one only where a secret is written: a URL's user info, an
// echoed option (`password=…`, `password: '…'`), or the value quoted back whole (a test server, a
// proxy). Those places are masked; the password's text inside ordinary words is not. Replacing
// every occurrence turned "type public.year does not exist" into "does not e***ist" for the
// password `x`, hiding the error and telling anyone reading it the password's letters.

export const MASK = '***';

const WORD_CHAR = /[\p{L}\p{N}_]/u;
const NOT_AFTER_WORD = '(?<![\\p{L}\\p{N}_])';
const NOT_BEFORE_WORD = '(?![\\p{L}\\p{N}_])';

/** `scheme://user:secret@`: the secret, whatever it is (percent-encoded or not the one we know). */
const URL_USER_INFO = /([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#@]*(?=@)/giu;

const QUOTED = `'(?:[^'\\\\]|\\\\.)*'|"(?:[^"\\\\]|\\\\.)*"`;
/** `password=secret` (libpq conninfo, ODBC-style strings), quoted or not. */
const OPTION_ASSIGNED = new RegExp(`\\b((?:password|passwd|pwd)\\s*=\\s*)(?:${QUOTED}|[^\\s,;&)]+)`, 'giu');
/**
 * `password: 'secret'`, `"password":"secret"` (an options object printed): quoted values only, so
 * MySQL's own "(using password: YES)" keeps saying whether a password was sent.
 */
const OPTION_PRINTED = new RegExp(`\\b((?:password|passwd|pwd)["']?\\s*:\\s*)(?:${QUOTED})`, 'giu');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The secret as a whole token: on a side where it begins or ends with a letter, digit or
 * underscore, the text next to it must not be one (a secret `x` is not found in "exist").
 */
function tokenPattern(secret: string): RegExp {
  const chars = Array.from(secret);
  const before = WORD_CHAR.test(chars[0]!) ? NOT_AFTER_WORD : '';
  const after = WORD_CHAR.test(chars[chars.length - 1]!) ? NOT_BEFORE_WORD : '';
  return new RegExp(`${before}${escapeRegExp(secret)}${after}`, 'gu');
}

/** `text` with `secret` masked where a secret can appear (see above); an empty secret masks only those places. */
export function maskSecret(text: string, secret: string): string {
  let masked = text
    .replace(URL_USER_INFO, `$1${MASK}`)
    .replace(OPTION_ASSIGNED, `$1${MASK}`)
    .replace(OPTION_PRINTED, `$1${MASK}`);
  if (secret === '') return masked;
  // The URL-encoded form too: that is how a secret stands in a connection string.
  for (const form of new Set([secret, encodeURIComponent(secret)]))
    masked = masked.replace(tokenPattern(form), MASK);
  return masked;
}
