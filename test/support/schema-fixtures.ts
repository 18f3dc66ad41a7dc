// The schema engine's own fixture pairs (test/fixtures/schema/<engine>/<case>/{a,b}.sql) and the
// full round trip each goes through on a real server: plan the target (a) to the source (b), apply,
// require an empty diff and an empty second plan, require the engines' dumps of both to match
// (schema-dump.ts), roll back, and require the target's original hash and dump.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { MigrationDialect } from '../../src/dialects/dialect.ts';
import { type Migration, planMigration } from '../../src/engine/migration/migration.ts';
import { diffSchemas } from '../../src/engine/schema/diff.ts';
import { schemaHash } from '../../src/engine/schema/hash.ts';
import { type LoadedDatabase, loadedDatabase } from './migrations.ts';
import { normalizedDumps } from './schema-dump.ts';

const fixturesDir = fileURLToPath(new URL('../fixtures/schema', import.meta.url));

/** The case folders of one engine's fixtures. */
export function schemaFixtureCases(engine: 'postgres' | 'mariadb'): string[] {
  return readdirSync(join(fixturesDir, engine), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The dump checks a fixture waives, from its `dump-waivers.txt`: lines `a → b` (the migrated
 * dump), `a → b rollback` (the dump after the rollback), and the same for `b → a`, each with its
 * reason after `#`. For differences pg_dump sees that no DDL can remove (a column made local by
 * INHERIT stays local); the model and its hash are still checked.
 */
export function dumpWaivers(engine: 'postgres' | 'mariadb', name: string): Set<string> {
  const path = join(fixturesDir, engine, name, 'dump-waivers.txt');
  if (!existsSync(path)) return new Set();
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

/**
 * The steps of the schema histories of one engine (test/fixtures/schema/<engine>-history/<app>/
 * vN.sql, one file per release): every release migrated to the next and back.
 */
export function schemaHistorySteps(
  engine: 'postgres' | 'mariadb',
): { name: string; target: string; source: string }[] {
  const dir = join(fixturesDir, `${engine}-history`);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((app) => {
    const releases = readdirSync(join(dir, app))
      .filter((file) => /^v\d+\.sql$/.test(file))
      .sort((a, b) => Number(a.slice(1, -4)) - Number(b.slice(1, -4)));
    const read = (file: string) => readFileSync(join(dir, app, file), 'utf8');
    return releases.slice(1).flatMap((file, i) => {
      const from = releases[i]!;
      return [
        { name: `${app} ${from} → ${file}`, target: read(from), source: read(file) },
        { name: `${app} ${file} → ${from}`, target: read(file), source: read(from) },
      ];
    });
  });
}

export function readSchemaFixture(
  engine: 'postgres' | 'mariadb',
  name: string,
  file: 'a.sql' | 'b.sql',
): string {
  return readFileSync(join(fixturesDir, engine, name, file), 'utf8');
}

/**
 * Runs `work` with a list to collect its databases in, and closes (drops) them when it ends: a
 * test of its own databases, which can run beside the others (it.concurrent).
 */
export async function withDatabases<T>(work: (open: LoadedDatabase[]) => Promise<T>): Promise<T> {
  const open: LoadedDatabase[] = [];
  try {
    return await work(open);
  } finally {
    await Promise.all(open.map((db) => db.close()));
  }
}

const context = (migration: Migration) =>
  `\n--- migration ---\n${migration.sql}\n--- rollback ---\n${migration.rollback_sql}`;

/**
 * Migrates a database loaded with `targetSql` to the schema of one loaded with `sourceSql`, checks
 * every oracle, rolls back and checks the target is as it was. Returns the migration for the
 * test's own assertions. `open` collects the databases for the test to close.
 */
export async function fixtureRoundTrip(
  dialect: MigrationDialect,
  targetSql: string,
  sourceSql: string,
  open: LoadedDatabase[],
  planId: string,
  /** More checks on the migrated target, before the rollback. */
  afterApply?: (target: LoadedDatabase, source: LoadedDatabase) => Promise<void>,
  waive: { dump?: boolean; rollbackDump?: boolean } = {},
): Promise<Migration> {
  const [target, source] = await Promise.all([
    loadedDatabase(dialect, targetSql),
    loadedDatabase(dialect, sourceSql),
  ]);
  open.push(target, source);
  const engine = dialect.name;
  const wanted = await source.handle.introspect();
  const original = await target.handle.introspect();
  const [originalDump] = await normalizedDumps(engine, target.url);
  const migration = planMigration(wanted, original, dialect, { backup_drops: true, plan_id: planId });
  const why = context(migration);

  const applied = await target.handle.apply(migration.statements, { lockTimeoutMs: 5_000 });
  expect(applied.failed, `apply failed: ${JSON.stringify(applied.failed)}${why}`).toBeNull();
  const after = await target.handle.introspect();
  expect(
    diffSchemas(after, wanted),
    `residual diff: ${JSON.stringify(diffSchemas(after, wanted))}${why}`,
  ).toMatchObject({
    tables_added: [],
    tables_removed: [],
    tables_modified: [],
    objects_added: [],
    objects_removed: [],
    objects_modified: [],
  });
  expect(planMigration(wanted, after, dialect).sql, `second plan${why}`).toBe('');
  const [migratedDump, sourceDump] = await normalizedDumps(engine, target.url, source.url);
  if (!waive.dump)
    expect(migratedDump, `dumps differ:${dumpDifference(migratedDump!, sourceDump!)}${why}`).toBe(sourceDump);
  await afterApply?.(target, source);

  expect(migration.rollback, `no rollback${why}`).not.toBeNull();
  const rolledBack = await target.handle.apply(migration.rollback!, { lockTimeoutMs: 5_000 });
  expect(rolledBack.failed, `rollback failed: ${JSON.stringify(rolledBack.failed)}${why}`).toBeNull();
  const back = await target.handle.introspect();
  expect(schemaHash(back), `after rollback: ${JSON.stringify(diffSchemas(original, back))}${why}`).toBe(
    schemaHash(original),
  );
  const [restoredDump] = await normalizedDumps(engine, target.url);
  if (!waive.rollbackDump)
    expect(restoredDump, `dump after rollback:${dumpDifference(restoredDump!, originalDump!)}${why}`).toBe(
      originalDump,
    );
  return migration;
}

/** The statements only one of two normalised dumps has, for a failure message that says what differs. */
function dumpDifference(actual: string, expected: string): string {
  const left = new Set(actual.split(';\n\n'));
  const right = new Set(expected.split(';\n\n'));
  const only = (a: Set<string>, b: Set<string>) => [...a].filter((statement) => !b.has(statement));
  return `\n--- only in the migrated ---\n${only(left, right).join(';\n')}\n--- only in the wanted ---\n${only(right, left).join(';\n')}`;
}
