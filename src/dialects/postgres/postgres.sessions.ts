// Server sessions of PostgreSQL that outlive the process that opened them (TargetHandle.endSession).
// A backend notices a dead client only when it next talks to it, so a statement in flight runs on.
// A session is named `<backend pid>@<server start, unix seconds>`: pids are reused across server
// lives, and the start time keeps a pid of a later life from being taken for the dead one.
import type pg from 'pg';

const POLL_MS = 100;

/** The name of the session `client` is. */
export async function postgresSessionOf(client: pg.ClientBase): Promise<string> {
  const { rows } = await client.query(
    'select pg_backend_pid() as pid, floor(extract(epoch from pg_postmaster_start_time()))::int8 as started',
  );
  return `${rows[0].pid}@${rows[0].started}`;
}

async function stillThere(client: pg.ClientBase, pid: number): Promise<boolean> {
  const { rows } = await client.query(
    'select 1 from pg_stat_activity where pid = $1 and usename = current_user',
    [pid],
  );
  return rows.length > 0;
}

/** Terminates the backend `session` (this user's, in this server's life) and waits until it is gone. */
export async function endPostgresSession(
  client: pg.ClientBase,
  session: string,
  timeoutMs: number,
): Promise<boolean> {
  const match = /^(\d+)@(\d+)$/.exec(session);
  if (!match) return true;
  const pid = Number(match[1]);
  const { rows } = await client.query(
    'select floor(extract(epoch from pg_postmaster_start_time()))::int8 as started',
  );
  if (String(rows[0].started) !== match[2]) return true;
  if (!(await stillThere(client, pid))) return true;
  await client.query('select pg_terminate_backend($1)', [pid]);
  const deadline = Date.now() + timeoutMs;
  while (await stillThere(client, pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
