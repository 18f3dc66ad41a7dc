// Helpers for migration tests on real servers: a throw-away database loaded with SQL and an open
// handle on it (either engine), and the compare → apply → compare-again → rollback round trip that
// every corpus case goes through.
import { expect } from 'vitest';
import type { MigrationDialect, TargetHandle } from '../../src/dialects/dialect.ts';
import type { ApplyResult } from '../../src/dialects/execution.ts';
import { type Migration, planMigration } from '../../src/engine/migration/migration.ts';
import type { PlanOptions } from '../../src/engine/migration/plan.ts';
import { diffSchemas, isEmptyDiff, type SchemaDiff } from '../../src/engine/schema/diff.ts';
import { schemaHash } from '../../src/engine/schema/hash.ts';
import type { SchemaModel } from '../../src/engine/schema/model.ts';
import { loadMysqlSql, loadPostgresSql } from './corpus.ts';
import { createTestPgDatabase } from './databases.ts';
import { createTestMysqlDatabase } from './mysql.ts';
import { targetConfig } from './targets.ts';

export interface LoadedDatabase {
  url: string;
  handle: TargetHandle;
  /** Runs more SQL (a script) in the database. */
  run(sql: string): Promise<void>;
  close(): Promise<void>;
}

export async function loadedDatabase(
  dialect: MigrationDialect,
  sql: string,
  options: { dropQualifier?: string } = {},
): Promise<LoadedDatabase> {
  const mysql = dialect.name === 'mysql';
  const database = mysql ? await createTestMysqlDatabase() : await createTestPgDatabase();
  if (!database) throw new Error(`No ${dialect.name} server for the test`);
  const run = (script: string) =>
    mysql ? loadMysqlSql(database.url, script, options) : loadPostgresSql(database.url, script);
  let handle: TargetHandle;
  try {
    if (sql.trim() !== '') await run(sql);
    handle = await dialect.open(targetConfig(database.url));
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    url: database.url,
    handle,
    run,
    async close() {
      await handle.close();
      await database.drop();
    },
  };
}

/** Everything a round trip found, for the test to assert on. */
export interface RoundTrip {
  migration: Migration;
  applied: ApplyResult;
  residual: SchemaDiff;
  rolledBack: ApplyResult | null;
  original: SchemaModel;
  afterRollback: SchemaModel | null;
}

/**
 * Plans `target` → `source`, applies it to the target, compares again, then applies the rollback
 * (when there is one) and introspects the target once more.
 */
export async function roundTrip(
  dialect: MigrationDialect,
  source: TargetHandle,
  target: TargetHandle,
  options: PlanOptions = {},
): Promise<RoundTrip> {
  const wanted = await source.introspect();
  const original = await target.introspect();
  const migration = planMigration(wanted, original, dialect, options);
  const applied = await target.apply(migration.statements, {
    lockTimeoutMs: 5_000,
    statementTimeoutMs: 60_000,
  });
  const residual = diffSchemas(await target.introspect(), wanted);
  let rolledBack: ApplyResult | null = null;
  let afterRollback: SchemaModel | null = null;
  if (migration.rollback !== null && applied.failed === null) {
    rolledBack = await target.apply(migration.rollback, { lockTimeoutMs: 5_000 });
    afterRollback = await target.introspect();
  }
  return { migration, applied, residual, rolledBack, original, afterRollback };
}

/** The assertions every successful round trip must pass, with the SQL in the failure message. */
export function expectRoundTrip(result: RoundTrip, options: { rollback: boolean }): void {
  const context = `\n--- migration ---\n${result.migration.sql}\n--- rollback ---\n${result.migration.rollback_sql}`;
  expect(result.applied.failed, `apply failed${context}`).toBeNull();
  expect(
    isEmptyDiff(result.residual),
    `residual diff ${JSON.stringify(result.residual, null, 1)}${context}`,
  ).toBe(true);
  if (!options.rollback) return;
  expect(result.migration.rollback, `no rollback${context}`).not.toBeNull();
  expect(result.rolledBack?.failed ?? null, `rollback failed${context}`).toBeNull();
  const back = result.afterRollback!;
  expect(
    schemaHash(back),
    `after rollback: ${JSON.stringify(diffSchemas(result.original, back), null, 1)}${context}`,
  ).toBe(schemaHash(result.original));
}
