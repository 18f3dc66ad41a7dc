// The connection form's state: a new connection's defaults or a saved one's values, the PATCH body
// of an edit (only what changed; the password only when one was typed, as it is write-only), and
// which edits move the connection to another server, for which the API wants the password again.
import type { Connection } from '../api/types.ts';

type Dialect = Connection['dialect'];
type Environment = Connection['environment'];
type SslMode = Connection['ssl_mode'];

export type FormState = ReturnType<typeof initialForm>;

export function initialForm(connection?: Connection) {
  return {
    name: connection?.name ?? '',
    dialect: connection?.dialect ?? ('postgresql' as Dialect),
    host: connection?.host ?? '127.0.0.1',
    port: connection?.port ?? 5432,
    database: connection?.database ?? '',
    username: connection?.username ?? '',
    // Write-only: never returned, so an edit starts empty and an empty field keeps the stored one.
    password: '',
    ssl_mode: connection?.ssl_mode ?? ('disable' as SslMode),
    environment: connection?.environment ?? ('development' as Environment),
    protected: connection?.protected ?? false,
  };
}

/** Only the fields that differ from the saved connection: PATCH changes exactly what it is given. */
export function changedFields(saved: Connection, form: FormState) {
  const { dialect: _fixed, password, ...editable } = form;
  const changes: Partial<Omit<FormState, 'dialect'>> = {};
  for (const key of Object.keys(editable) as (keyof typeof editable)[]) {
    if (editable[key] !== saved[key]) Object.assign(changes, { [key]: editable[key] });
  }
  if (password !== '') changes.password = password;
  return changes;
}

/** TLS modes, weakest first: lowering one sends the password where it may be read. */
const SSL_STRENGTH: Record<SslMode, number> = { disable: 0, require: 1, 'verify-full': 2 };

/** A host as the API compares it: ASCII letters folded, an IPv6 zone (after `%`) as it is. */
function hostKey(host: string): string {
  const zone = host.indexOf('%');
  const address = zone === -1 ? host : host.slice(0, zone);
  const folded = address.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  return zone === -1 ? folded : folded + host.slice(zone);
}

/**
 * What in the form moves the saved connection to another server (the API's rule): its stored
 * password is only ever sent to the server it was given for, so such an edit must bring the
 * password again. Empty when nothing moves.
 */
export function movedFields(saved: Connection, form: FormState): string[] {
  const moved: string[] = [];
  if (hostKey(form.host) !== hostKey(saved.host)) moved.push('host');
  if (form.port !== saved.port) moved.push('port');
  if (form.database !== saved.database) moved.push('database');
  if (form.username !== saved.username) moved.push('user name');
  if (SSL_STRENGTH[form.ssl_mode] < SSL_STRENGTH[saved.ssl_mode]) moved.push('a weaker TLS mode');
  return moved;
}

/** The message of a 422 about `body.<field>` in an API error body, if it has one. */
export function fieldError(body: unknown, field: string): string | undefined {
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  if (!Array.isArray(detail)) return undefined;
  const item = (detail as { loc?: unknown[]; msg?: string }[]).find(
    (entry) => entry.loc?.[0] === 'body' && entry.loc?.[1] === field,
  );
  return item ? (item.msg ?? 'invalid') : undefined;
}
