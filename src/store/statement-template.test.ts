// Statement templates (built and compiled once per shape, values put in per call) and the store's
// API timestamps, on the embedded store: the SQL is the same on both.
import {
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTemplateStore } from '../../test/support/store-template.ts';
import { toTimestamp } from '../http/schemas.ts';
import { apiTimestamp } from './api-timestamp.ts';
import type { Store } from './db.ts';
import { statementTemplate } from './statement-template.ts';

interface Probe {
  probe: { id: number; label: string; at: Date };
}

class Counter implements KyselyPlugin {
  seen = 0;
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    this.seen++;
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

describe('statement templates', () => {
  let store: Store;
  let db: Kysely<Probe>;

  beforeAll(async () => {
    store = await openTemplateStore('blank');
    db = store.db as unknown as Kysely<Probe>;
    await sql`create table probe (id int primary key, label text not null, at timestamptz not null)`.execute(
      db,
    );
    await sql`insert into probe values
      (1, 'one', '2026-01-31 12:00:00.999999+00'),
      (2, 'two', '2026-02-01 23:59:59.5+02'),
      (3, 'three', '1999-12-31 23:59:59+00')`.execute(db);
  });
  afterAll(() => store.close());

  const labels = (rows: { label: string }[]) => rows.map((row) => row.label);

  it('puts each call’s values in, per shape, and builds each shape once', async () => {
    let builds = 0;
    const template = statementTemplate(
      db,
      (db, shape: { descending: boolean }, values: { min: number; limit: number }) => {
        builds++;
        return db
          .selectFrom('probe')
          .select('label')
          .where('id', '>=', values.min)
          .orderBy('id', shape.descending ? 'desc' : 'asc')
          .limit(values.limit);
      },
    );
    expect(labels((await template.execute({ descending: false }, { min: 1, limit: 2 })).rows)).toEqual([
      'one',
      'two',
    ]);
    expect(labels((await template.execute({ descending: false }, { min: 2, limit: 5 })).rows)).toEqual([
      'two',
      'three',
    ]);
    expect(labels((await template.execute({ descending: true }, { min: 1, limit: 1 })).rows)).toEqual([
      'three',
    ]);
    expect(builds).toBe(2);
  });

  it('refuses a value used other than as a parameter', async () => {
    const template = statementTemplate(db, (db, _shape: object, values: { limit: number }) =>
      db
        .selectFrom('probe')
        .select('label')
        .limit(values.limit * 2),
    );
    await expect(async () => template.execute({}, { limit: 1 })).rejects.toThrow(
      /"limit" may only be passed to the query as a value/,
    );
  });

  it('shows each execution to the plugins once', async () => {
    const counter = new Counter();
    const counted = db.withPlugin(counter);
    const template = statementTemplate(counted, (db, _shape: object, values: { id: number }) =>
      db.selectFrom('probe').select('label').where('id', '=', values.id),
    );
    for (const id of [1, 2, 3]) await template.execute({}, { id });
    expect(counter.seen).toBe(3);
  });

  it('formats timestamps in the store as the API writes them', async () => {
    const rows = await db
      .selectFrom('probe')
      .select(['at', apiTimestamp('probe.at').as('text')])
      .orderBy('id')
      .execute();
    expect(rows.map((row) => row.text)).toEqual([
      '2026-01-31T12:00:00Z',
      '2026-02-01T21:59:59Z',
      '1999-12-31T23:59:59Z',
    ]);
    expect(rows.map((row) => row.text)).toEqual(rows.map((row) => toTimestamp(row.at)));
  });
});
