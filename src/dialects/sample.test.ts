// The subset `percent` sample (RowFormat.sampleSql): a function of the row's key and the seed, so the
// same request samples the same rows (a resumed run completes the sample its copied tables belong
// to), another seed other rows; about the asked share, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEngines } from '../../test/support/engines.ts';
import { mysqlRowFormat } from './mysql/mysql.rows.ts';
import { postgresRowFormat } from './postgres/postgres.rows.ts';

const engines = await targetEngines('subset samples (sample.test.ts)');
const both = engines.postgresql.up && engines.mysql.up;

describe.skipIf(!both)('the subset sample of each engine', () => {
  const created: { drop(): Promise<void> }[] = [];
  const urls: { pg: string; my: string } = { pg: '', my: '' };
  const TABLE = 'create table t (a int, b varchar(10), primary key (a, b));';
  beforeAll(async () => {
    const pg = await engines.postgresql.create();
    const my = await engines.mysql.create();
    created.push(pg, my);
    urls.pg = pg.url;
    urls.my = my.url;
    await engines.postgresql.load(
      pg.url,
      `${TABLE} insert into t select i, 'k' || i from generate_series(1, 2000) i;`,
    );
    const values = Array.from({ length: 2000 }, (_, i) => `(${i + 1}, 'k${i + 1}')`).join(', ');
    await engines.mysql.load(my.url, `${TABLE} insert into t values ${values};`);
  });
  afterAll(async () => {
    for (const database of created) await database.drop();
  });

  const sampled = async (engine: 'pg' | 'my', seed: string, share: number) => {
    const format = engine === 'pg' ? postgresRowFormat : mysqlRowFormat;
    const quote = engine === 'pg' ? (c: string) => `"${c}"` : (c: string) => `\`${c}\``;
    const run = engine === 'pg' ? engines.postgresql : engines.mysql;
    const rows = await run.query(
      urls[engine],
      `select a from t where ${format.sampleSql(['a', 'b'].map(quote), seed)} < ${share} order by a`,
    );
    return rows.map((row) => Number(row.a));
  };

  for (const engine of ['pg', 'my'] as const)
    it(`${engine === 'pg' ? 'PostgreSQL' : 'MariaDB'}: the same rows for the same seed, about the share asked`, async () => {
      const first = await sampled(engine, '0123456789abcdef', 0.3);
      expect(await sampled(engine, '0123456789abcdef', 0.3)).toEqual(first);
      expect(first.length).toBeGreaterThan(500);
      expect(first.length).toBeLessThan(700);
      expect(await sampled(engine, 'fedcba9876543210', 0.3)).not.toEqual(first);
    });
});
