// A schema's history as a long-lived application writes it (test/fixtures/schema/postgres-history/
// <app>/vN.sql, one file per release): each release migrated to the next and back, with every
// oracle of schema-fixtures.ts (empty diff and second plan, equal pg_dump output, rollback to the
// original hash and dump). The steps run side by side, each with its own databases.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import { fixtureRoundTrip, withDatabases } from '../../../test/support/schema-fixtures.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'schema histories (src/dialects/postgres/postgres.schema-history.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

const historyDir = fileURLToPath(new URL('../../../test/fixtures/schema/postgres-history', import.meta.url));

/** Every consecutive pair of releases of every history, both ways. */
const steps = readdirSync(historyDir).flatMap((app) => {
  const releases = readdirSync(join(historyDir, app))
    .filter((file) => /^v\d+\.sql$/.test(file))
    .sort((a, b) => Number(a.slice(1, -4)) - Number(b.slice(1, -4)));
  const read = (file: string) => readFileSync(join(historyDir, app, file), 'utf8');
  return releases.slice(1).flatMap((file, i) => {
    const [from, to] = [releases[i]!, file];
    return [
      { name: `${app} ${from} → ${to}`, target: read(from), source: read(to) },
      { name: `${app} ${to} → ${from}`, target: read(to), source: read(from) },
    ];
  });
});

it.skipIf(!pgUp).concurrent.each(steps)('$name', async ({ name, target, source }) => {
  const migration = await withDatabases((open) =>
    fixtureRoundTrip(postgresDialect, target, source, open, `history-${name.replace(/\W+/g, '-')}`),
  );
  expect(migration.statements.length).toBeGreaterThan(0);
});
