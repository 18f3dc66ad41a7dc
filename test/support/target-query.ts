// Reading a throw-away target database directly in tests (what a table holds, before and after an
// operation), bypassing the service.
import mysql from 'mysql2/promise';
import pg from 'pg';

export async function queryPostgres(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
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
