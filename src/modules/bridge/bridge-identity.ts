// What a row session tells of its server before a copy: which server and database it reaches (so
// that a copy never reads and writes one database through two connections) and how it reads a
// filter's text (MySQL's sql_mode). Both the request's check (bridge.service.ts) and the run
// (bridge-run.ts) ask.
import type { RowSession, TargetHandle } from '../../dialects/dialect.ts';

/** The server and database a session reaches (RowFormat.identitySql). */
export async function identityOf(session: RowSession, handle: TargetHandle): Promise<string> {
  const { rows } = await session.query(handle.sql.rows.identitySql);
  return `${handle.dialect}:${String((rows[0] as { identity: unknown }).identity)}`;
}

/** How a session's server reads a filter's text (RowFormat.filterModeSql); '' where nothing changes it. */
export async function filterModeOf(session: RowSession, handle: TargetHandle): Promise<string> {
  const sql = handle.sql.rows.filterModeSql;
  if (sql === null) return '';
  const { rows } = await session.query(sql);
  return String((rows[0] as { mode: unknown }).mode ?? '');
}
