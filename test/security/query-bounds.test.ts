// Found from outside (numbers): `GET /api/v1/audit?page=99999999999999999999` answered 500 (the
// store refused "5e+21" as a bigint). docs/contract.md §1: `page` is at most 1,000,000, declared as the schema's
// `maximum`, and a number out of range is 422 on its query field, never 500. Every numeric query
// parameter of every route is bounded by its schema, so the class cannot come back through a new one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';
import type { JsonSchema } from '../support/openapi-arbitraries.ts';
import { moduleRoutes, type RouteEntry } from '../support/route-table.ts';

const HUGE = '99999999999999999999';

/** The numeric query parameters of a route, with their bounds as the schema declares them. */
function numericQueryParameters(route: RouteEntry) {
  // A query schema is an object, or an intersection (`allOf`) of objects such as PageQuery and filters.
  const parts = (schema: JsonSchema | undefined): JsonSchema[] =>
    schema ? [schema, ...((schema.allOf ?? []) as JsonSchema[]).flatMap(parts)] : [];
  const properties = parts(route.schema.querystring).flatMap((part) =>
    Object.entries((part.properties ?? {}) as Record<string, JsonSchema>),
  );
  return properties
    .filter(([, schema]) => schema.type === 'integer' || schema.type === 'number')
    .map(([name, schema]) => ({ name, minimum: schema.minimum, maximum: schema.maximum }));
}

describe('numeric query parameters are bounded by their schema', () => {
  let t: TestApp;
  let owner: Client;
  let routes: RouteEntry[];

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Numbers'));
    routes = await moduleRoutes(t.composition);
  });
  afterAll(() => t?.close());

  it('declares a minimum and a maximum for every one', () => {
    const numeric = routes.flatMap((route) =>
      numericQueryParameters(route).map((p) => ({ at: `${route.method} ${route.url} ?${p.name}`, ...p })),
    );
    console.log(
      `numeric query parameters:\n${numeric.map((p) => `  ${p.at} [${p.minimum}, ${p.maximum}]`).join('\n')}`,
    );
    expect(numeric.length).toBeGreaterThan(10);
    expect(numeric.filter((p) => p.minimum === undefined || p.maximum === undefined)).toEqual([]);
    expect(numeric.filter((p) => p.name === 'page').every((p) => p.maximum === 1_000_000)).toBe(true);
  });

  it('answers page=99999999999999999999 on the audit trail 422 on query.page', async () => {
    const answer = await owner.get(`/api/v1/audit?page=${HUGE}`);
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['query', 'page']);
    const last = await owner.get('/api/v1/audit?page=1000000');
    expect(last.status).toBe(200);
    expect(last.body.items).toEqual([]);
  });

  it('answers 422, never 500, to a huge value of each numeric query parameter of every GET list', async () => {
    const answers: string[] = [];
    for (const route of routes) {
      if (route.method !== 'GET' || !route.url.startsWith('/api/v1')) continue;
      // Query validation comes before the handler, so any well-formed id will do.
      const url = route.url.replace(/:[^/]+/g, randomUUID());
      for (const { name } of numericQueryParameters(route)) {
        const answer = await owner.get(`${url}?${name}=${HUGE}`);
        answers.push(`${route.url} ?${name}: ${answer.status}`);
        expect(answer.status, `${route.url}?${name}=${HUGE}`).toBe(422);
        expect(answer.body.detail[0].loc).toEqual(['query', name]);
      }
    }
    expect(answers.length).toBeGreaterThan(10);
  });
});
