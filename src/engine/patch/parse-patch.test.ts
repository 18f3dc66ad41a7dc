import { describe, expect, it } from 'vitest';
import { parsePatch } from './parse-patch.ts';

describe.each(['postgresql', 'mysql'] as const)('parsePatch (%s)', (dialect) => {
  it('accepts UPDATE, DELETE and INSERT with their tables', async () => {
    const result = await parsePatch(
      dialect,
      "UPDATE people SET name = 'x' WHERE id = 1; DELETE FROM app.people WHERE id = 2;\nINSERT INTO people (id, name) VALUES (3, 'c');",
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(
      result.statements.map(({ index, kind, table, set_columns, upsert }) => ({
        index,
        kind,
        table,
        set_columns,
        upsert,
      })),
    ).toEqual([
      { index: 0, kind: 'update', table: 'people', set_columns: ['name'], upsert: false },
      { index: 1, kind: 'delete', table: 'app.people', set_columns: [], upsert: false },
      { index: 2, kind: 'insert', table: 'people', set_columns: [], upsert: false },
    ]);
    expect(result.statements[0]!.sql.toLowerCase()).toContain('update');
    expect(result.statements[0]!.where_sql).toMatch(/id. = 1|id = 1/);
    expect(result.statements[1]!.target_sql).toMatch(/app.\.[`"]people/);
    expect(result.statements[2]!.where_sql).toBeNull();
  });

  it('refuses DDL hidden after DML, naming the statement', async () => {
    const result = await parsePatch(dialect, 'UPDATE people SET name = 1 WHERE id = 1; DROP TABLE people');
    expect(result).toMatchObject({ ok: false, index: 1 });
    if (!result.ok) expect(result.message).toMatch(/^Statement 2: /);
  });

  it('refuses SELECT and unparseable text', async () => {
    expect((await parsePatch(dialect, 'SELECT 1')).ok).toBe(false);
    expect((await parsePatch(dialect, 'UPDATE people SET WHERE')).ok).toBe(false);
    expect((await parsePatch(dialect, '   ')).ok).toBe(false);
  });

  it('says where the SQL stops parsing: line and column, from 1', async () => {
    const result = await parsePatch(
      dialect,
      "UPDATE people SET name = 'x' WHERE id = 1;\nUPDATE people SETT name = 1 WHERE id = 2",
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^The SQL does not parse at line 2, column 20: /);
  });

  it('refuses UPDATE and DELETE without WHERE unless the full table is allowed', async () => {
    const result = await parsePatch(dialect, 'DELETE FROM people');
    expect(result).toMatchObject({ ok: false, index: 0 });
    if (!result.ok) expect(result.message).toMatch(/allow_full_table/);
    expect((await parsePatch(dialect, 'UPDATE people SET name = 1')).ok).toBe(false);
    expect((await parsePatch(dialect, 'DELETE FROM people', { allowFullTable: true })).ok).toBe(true);
  });

  it('refuses RETURNING: execute records the rows with its own', async () => {
    const result = await parsePatch(dialect, 'DELETE FROM people WHERE id = 1 RETURNING id');
    expect(result).toMatchObject({ ok: false, index: 0 });
    if (!result.ok) expect(result.message).toMatch(/RETURNING is not allowed/);
  });

  it('refuses CTEs and multi-table statements', async () => {
    const cte = await parsePatch(
      dialect,
      'WITH x AS (SELECT 1 AS id) DELETE FROM people WHERE id IN (SELECT id FROM x)',
    );
    expect(cte.ok).toBe(false);
  });
});

describe('parsePatch (postgresql only)', () => {
  it('keeps the WHERE text with quoting and nesting intact', async () => {
    const result = await parsePatch(
      'postgresql',
      "UPDATE people p SET name = 'where' WHERE (p.id IN (SELECT 1 WHERE true)) AND name <> 'returning'",
    );
    expect(result.ok && result.statements[0]!.where_sql).toBe(
      "(p.id IN (SELECT 1 WHERE true)) AND name <> 'returning'",
    );
    expect(result.ok && result.statements[0]!.target_sql).toBe('"people" AS "p"');
    expect(result.ok && result.statements[0]!.table_sql).toBe('"people"');
  });

  it('names the assigned columns, also of a row assignment, and sees an upsert', async () => {
    const update = await parsePatch('postgresql', 'UPDATE t SET a = 1, (b, c) = (2, 3) WHERE id = 1');
    expect(update.ok && update.statements[0]!.set_columns).toEqual(['a', 'b', 'c']);
    const upsert = await parsePatch(
      'postgresql',
      'INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2',
    );
    expect(upsert.ok && upsert.statements[0]!.upsert).toBe(true);
    const nothing = await parsePatch('postgresql', 'INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING');
    expect(nothing.ok && nothing.statements[0]!.upsert).toBe(false);
  });

  it('leaves a trailing comment out of the WHERE text, which other SQL embeds', async () => {
    const result = await parsePatch(
      'postgresql',
      "UPDATE t SET a = 1 WHERE id = 1 -- why\n AND b = '--' /* c */ -- fix\n; DELETE FROM t WHERE (id = 2) /* x */",
    );
    expect(result.ok && result.statements.map((s) => s.where_sql)).toEqual([
      "id = 1 -- why\n AND b = '--'",
      '(id = 2)',
    ]);
  });

  it('refuses UPDATE … FROM and a data-modifying CTE', async () => {
    expect((await parsePatch('postgresql', 'UPDATE a SET x = b.x FROM b WHERE a.id = b.id')).ok).toBe(false);
    expect((await parsePatch('postgresql', 'WITH d AS (DELETE FROM a RETURNING *) SELECT 1')).ok).toBe(false);
  });
});

describe('parsePatch (mysql only)', () => {
  it('sees ON DUPLICATE KEY UPDATE as an upsert', async () => {
    const upsert = await parsePatch('mysql', 'INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2');
    expect(upsert.ok && upsert.statements[0]!.upsert).toBe(true);
  });

  it('refuses multi-table UPDATE and DELETE', async () => {
    expect((await parsePatch('mysql', 'UPDATE a JOIN b ON a.id = b.id SET a.x = 1 WHERE b.y = 2')).ok).toBe(
      false,
    );
    expect((await parsePatch('mysql', 'DELETE a FROM a JOIN b ON a.id = b.id WHERE b.y = 1')).ok).toBe(false);
  });
});
