// Reading a throw-away target database directly in tests (what a table holds, before and after an
// operation), bypassing the service.
import mysql from 'mysql2/promise';
import pg from 'pg';

/** The rows of `sql` on the PostgreSQL database at `url`; `T` names the columns a test reads. */
export async function queryPostgres<T = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function queryMysql(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    const [rows] = await connection.query(sql);
    return rows as Record<string, unknown>[];
  } finally {
    await connection.end();
  }
}

/**
 * A fingerprint of everything a table holds: md5 over all its rows in primary key order, computed
 * by the server (PostgreSQL: each row as text; MySQL: each column QUOTE()d, so NULL and '' differ),
 * and the row count. Throws for a table without a primary key, whose order is not defined.
 */
export async function tableChecksum(url: string, table: string): Promise<{ sum: string; rows: number }> {
  if (url.startsWith('mysql')) {
    const connection = await mysql.createConnection({ uri: url });
    try {
      // GROUP_CONCAT stops at 1 KiB by default: a longer table would hash only its first rows.
      await connection.query('SET SESSION group_concat_max_len = 1073741824');
      const [found] = await connection.query(
        `select column_name as name, column_key = 'PRI' as pk from information_schema.columns
          where table_schema = database() and table_name = ? order by ordinal_position`,
        [table],
      );
      const columns = found as { name: string; pk: number }[];
      const quoted = (names: string[]) => names.map((name) => `\`${name}\``);
      const key = quoted(columns.filter((c) => c.pk).map((c) => c.name));
      if (key.length === 0) throw new Error(`${table} has no primary key`);
      const values = quoted(columns.map((c) => c.name)).map((c) => `quote(${c})`);
      const [rows] = await connection.query(
        `select coalesce(md5(group_concat(concat_ws(',', ${values.join(', ')}) order by ${key.join(', ')} separator '\\n')), '') as sum, count(*) as n from \`${table}\``,
      );
      const [row] = rows as { sum: string; n: number }[];
      return { sum: row!.sum, rows: Number(row!.n) };
    } finally {
      await connection.end();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const key = await client.query(
      `select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = $1::regclass and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)`,
      [table],
    );
    if (key.rows.length === 0) throw new Error(`${table} has no primary key`);
    const order = key.rows.map((r: { name: string }) => `t."${r.name}"`).join(', ');
    const { rows } = await client.query(
      `select coalesce(md5(string_agg(t::text, E'\\n' order by ${order})), '') as sum, count(*)::int as n from ${table} t`,
    );
    return { sum: rows[0].sum, rows: rows[0].n };
  } finally {
    await client.end();
  }
}
