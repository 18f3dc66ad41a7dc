// Server sessions of MySQL/MariaDB that outlive the process that opened them. A client killed with
// SIGKILL closes its socket, but the server finishes the statement it was running (an ALTER TABLE
// goes on copying, then commits) before it notices. So whoever settles what a dead apply did first
// ends its session and waits until the server is done with it; only then does the schema stop
// changing under the introspection that classifies the statement in flight.
//
// A session is named `<connection id>@<server start, unix seconds>`: connection ids start again at
// 1 when the server restarts, and the start time keeps an id of the next server life from being
// taken for the dead one (a restart has ended the dead session anyway).
import type mysql from 'mysql2/promise';

/** How far apart two readings of the server's start may be (its uptime counts whole seconds). */
const START_TOLERANCE_S = 2;
const POLL_MS = 100;

async function serverStart(connection: mysql.Connection): Promise<number> {
  // SHOW STATUS answers on both engines (MySQL 8 has no information_schema.global_status).
  const [status] = await connection.query("show global status like 'Uptime'");
  const [now] = await connection.query('select unix_timestamp() as now');
  const uptime = Number((status as { Value: string }[])[0]?.Value);
  return Math.round(Number((now as { now: number | string }[])[0]?.now) - uptime);
}

/** The name of the session `connection` is, for `endMysqlSession`. */
export async function mysqlSessionOf(connection: mysql.Connection): Promise<string> {
  const [rows] = await connection.query('select connection_id() as id');
  const id = Number((rows as { id: number | string }[])[0]?.id);
  return `${id}@${await serverStart(connection)}`;
}

async function stillThere(connection: mysql.Connection, id: number): Promise<boolean> {
  const [rows] = await connection.query(
    "select 1 as present from information_schema.processlist where id = ? and user = substring_index(current_user(), '@', 1)",
    [id],
  );
  return (rows as unknown[]).length > 0;
}

/**
 * Kills the session `session` (when it is still there, of this user, in this server's life) and
 * waits up to `timeoutMs` until it is gone. Returns whether it is gone.
 */
export async function endMysqlSession(
  connection: mysql.Connection,
  session: string,
  timeoutMs: number,
): Promise<boolean> {
  const match = /^(\d+)@(-?\d+)$/.exec(session);
  if (!match) return true;
  const id = Number(match[1]);
  if (Math.abs((await serverStart(connection)) - Number(match[2])) > START_TOLERANCE_S) return true;
  if (!(await stillThere(connection, id))) return true;
  // Ends the statement too: DDL is atomic on MySQL 8 and MariaDB 10.6+, so it either committed
  // before the kill or leaves nothing.
  await connection.query(`KILL ${id}`).catch((error: { errno?: number }) => {
    if (error.errno !== 1094) throw error; // ER_NO_SUCH_THREAD: it ended meanwhile
  });
  const deadline = Date.now() + timeoutMs;
  while (await stillThere(connection, id)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
