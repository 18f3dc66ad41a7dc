// When a stored password may stay with an edited connection. A password was given for one endpoint:
// an engine, an address, a database, a user, and a way of checking that the server is who it says.
// An edit that points the connection anywhere else, or checks the server less, must bring a password
// of its own; otherwise whoever may edit a connection could have the service hand the stored password
// to a server of their choosing (a listener of their own, one connection test away).
import type { Connection, SslMode } from '../../store/tables.ts';

/**
 * How strongly each mode checks the server, weakest first: no TLS; TLS that accepts any certificate
 * (a listener on the path can still read what is sent); TLS with the chain and the host name checked.
 * Lowering is moving to a smaller number.
 */
export const SSL_MODE_STRENGTH = {
  disable: 0,
  require: 1,
  'verify-full': 2,
} as const satisfies Record<SslMode, number>;

/** The settings that say where the password goes and how the server there is checked. */
export type EndpointSettings = Pick<
  Connection,
  'dialect' | 'host' | 'port' | 'database' | 'username' | 'ssl_mode' | 'ca_cert'
>;

/**
 * The spelling under which two hosts are one endpoint. Only ASCII letters are folded (DNS names and
 * the hex digits of IPv6 are case-insensitive; the host schema admits ASCII only, and folding beyond
 * it could merge different names), and an IPv6 zone after `%` keeps its case (interface names are
 * case-sensitive). Nothing else is folded: a trailing dot makes a name absolute, so `db` and `db.`
 * can resolve differently through the resolver's search list, and other spellings of one address
 * (`127.1`, `0::1`) are left to the resolver. Such an edit counts as a move and needs the password:
 * when in doubt, ask.
 */
export function hostKey(host: string): string {
  const zone = host.indexOf('%');
  const address = zone === -1 ? host : host.slice(0, zone);
  const folded = address.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  return zone === -1 ? folded : folded + host.slice(zone);
}

/** PEM text compared as certificates, not as bytes: line endings and surrounding blanks do not count. */
const pemKey = (pem: string | null) => (pem === null ? null : pem.replace(/\r\n?/g, '\n').trim());

/**
 * What in `next` would send the stored password somewhere it was not given for, in field order;
 * empty when nothing would. A value equal to the stored one (hosts compared by `hostKey`) is no
 * change. `ca_cert` counts only while `verify-full` stays: under it, the CAs trusted decide which
 * server passes for the host, so another set of CAs is another check (under `require` and `disable`
 * it is not used; raising the mode to `verify-full` checks more than before, whatever the CA).
 */
export function passwordMovingChanges(
  stored: EndpointSettings,
  next: Partial<EndpointSettings>,
): (keyof EndpointSettings)[] {
  const moved: (keyof EndpointSettings)[] = [];
  if (next.dialect !== undefined && next.dialect !== stored.dialect) moved.push('dialect');
  if (next.host !== undefined && hostKey(next.host) !== hostKey(stored.host)) moved.push('host');
  if (next.port !== undefined && next.port !== stored.port) moved.push('port');
  if (next.database !== undefined && next.database !== stored.database) moved.push('database');
  if (next.username !== undefined && next.username !== stored.username) moved.push('username');
  const mode = next.ssl_mode ?? stored.ssl_mode;
  if (SSL_MODE_STRENGTH[mode] < SSL_MODE_STRENGTH[stored.ssl_mode]) moved.push('ssl_mode');
  if (
    next.ca_cert !== undefined &&
    mode === 'verify-full' &&
    stored.ssl_mode === 'verify-full' &&
    pemKey(next.ca_cert) !== pemKey(stored.ca_cert)
  )
    moved.push('ca_cert');
  return moved;
}

/** The 422 message naming what moved, for `body.password`. */
export function passwordRequiredMessage(
  stored: EndpointSettings,
  moved: readonly (keyof EndpointSettings)[],
  next: Partial<EndpointSettings>,
): string {
  const what = moved.map((field) =>
    field === 'ssl_mode'
      ? `lowering ssl_mode from ${stored.ssl_mode} to ${next.ssl_mode}`
      : field === 'ca_cert'
        ? 'changing ca_cert under verify-full'
        : `changing ${field}`,
  );
  const list = what.length === 1 ? what[0] : `${what.slice(0, -1).join(', ')} and ${what.at(-1)}`;
  return (
    `Field required: ${list} needs the password in the same request. A stored password is only ` +
    'sent to the server it was given for.'
  );
}
