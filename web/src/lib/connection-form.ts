// The connection form's state: a new connection's defaults or a saved one's values, and the PATCH
// body of an edit (only what changed; the password only when one was typed, as it is write-only).
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
