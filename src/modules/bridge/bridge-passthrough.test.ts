// PostgreSQL → PostgreSQL moves the COPY text from one server to the other without decoding it
// (postgres.rows.ts; the service only cuts it at row ends), so every value the text format can
// carry arrives as it left: escapes, NULL beside the empty string, signed zero, NaN and infinities,
// bytea, JSON with escapes, arrays, multibyte text. On the real PostgreSQL test server.
import { describe, expect, it } from 'vitest';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { targetEngines } from '../../../test/support/engines.ts';

const engines = await targetEngines('bridge passthrough (bridge-passthrough.test.ts)');

const SCHEMA = `create table oddities (id integer primary key, t text, f double precision, n numeric,
  ts timestamptz, b bytea, j jsonb, a text[], big bigint);`;
const DATA = `insert into oddities values
  (1, E'back\\\\slash\\ttab\\nnew line\\rreturn', '-0', 'NaN', 'infinity', '\\x00ff0a09', '{"k": "a\\"b\\u00e9\\n"}', '{"x,y","",NULL}', -9223372036854775808),
  (2, '', 'Infinity', '123456789012345678901234567890.123456789', '-infinity', '', '[]', '{}', 9223372036854775807),
  (3, NULL, '-Infinity', '-0.000000000000000000001', '1999-12-31 23:59:59.999999+14', NULL, 'null', NULL, 0),
  (4, 'Ünïcödé ελληνικά кириллица 日本語 한국어 😀', 'NaN', NULL, '2024-02-29 12:00:00+00', '\\x5c4e', '{"\\\\N": "\\\\N"}', '{"\\\\N"}', NULL),
  (5, E'\\\\N', 1.7976931348623157e308, 0, NULL, '\\x', '{"nested": {"deep": [1, 2.50, "three"]}}', '{"a\\tb"}', 1);`;
const ROWS_SQL = `select id, t, f::text, n::text, ts::text, encode(b, 'hex') as b, j::text, a::text, big::text
  from oddities order by id`;

describe.skipIf(!engines.postgresql.up)('bridge: PostgreSQL to PostgreSQL text passes through', () => {
  const suite = bridgeSuite(
    { org: 'Bridge passthrough org', project: 'Passthrough' },
    async ({ database }) => {
      await database('pg_source', engines.postgresql, SCHEMA + DATA);
      await database(
        'pg_target',
        engines.postgresql,
        `${SCHEMA} insert into oddities (id, t) values (9, 'stale');`,
      );
    },
  );
  const { urls, ids, copied } = suite;

  it('every value arrives as it left, NULL apart from the empty string', async () => {
    const run = await copied({ source_connection_id: ids.pg_source, target_connection_id: ids.pg_target });
    expect(run.error).toBeNull();
    expect(run.result.load_method).toBe('copy');
    const source = await engines.postgresql.query(urls.pg_source!, ROWS_SQL);
    expect(source).toHaveLength(5);
    expect(await engines.postgresql.query(urls.pg_target!, ROWS_SQL)).toEqual(source);
    expect(source[1]).toMatchObject({ t: '' });
    expect(source[2]).toMatchObject({ t: null, b: null });
  });
});
