// Fuzzing from the contract: every operation of the service's own /openapi.json is called
// with requests derived from its declared parameters and body (valid, boundary and invalid values,
// undeclared fields, bodies of the wrong type), as each kind of caller: a session, keys of each
// scope, the owner of another organization, nobody. No answer may be a 5xx (502 is allowed: a
// target on the loopback that does not answer), and every 4xx keeps the error model of docs/contract.md §2.
// Then every operation gets hostile bodies (deep, wide, huge, naming what objects inherit,
// test/support/hostile-bodies.ts): still no 5xx, no answer slower than 10 s, no polluted prototype.
// Each run prints its figures: requests, 5xx, the slowest answer.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../src/app.ts';
import { type Client, createTestApp, type Response, type TestApp } from '../support/app.ts';
import { hostileBodies } from '../support/hostile-bodies.ts';
import { createArbitraries, type OpenApiDocument } from '../support/openapi-arbitraries.ts';

/** Requests per operation and caller kind; FUZZ_RUNS raises it for a longer run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const LOCATIONS = ['body', 'query', 'path', 'header'];
/** No answer may take longer, whatever was sent. */
const SLOWEST_ALLOWED_MS = 10_000;

/** A request timed: its answer and how long it took. */
async function timed(send: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = performance.now();
  const response = await send();
  return { response, ms: performance.now() - started };
}

/**
 * What is wrong with an answer, or null: the error model of docs/contract.md §2, or under /scim/v2
 * the SCIM error envelope (§12).
 */
function contractBreach(response: Response, path: string): string | null {
  const { status, body } = response;
  if (status >= 500 && status !== 502) return `status ${status}`;
  if (status < 400) return null;
  if (path.startsWith('/scim/v2/')) return scimBreach(response);
  if (typeof body !== 'object' || body === null) return 'an error without a JSON body';
  if (status === 422 && Array.isArray(body.detail)) {
    for (const item of body.detail) {
      if (!Array.isArray(item.loc) || !LOCATIONS.includes(item.loc[0]))
        return `422 loc ${JSON.stringify(item.loc)}`;
      if (typeof item.msg !== 'string' || typeof item.type !== 'string')
        return '422 item without msg or type';
    }
    return null;
  }
  if (typeof body.detail !== 'string') return `${status} without a string detail`;
  if (Object.keys(body).some((key) => key !== 'detail')) return `${status} with fields besides detail`;
  if (status === 401 && response.headers['www-authenticate'] === undefined)
    return '401 without WWW-Authenticate';
  if (status === 429 && response.headers['retry-after'] === undefined) return '429 without Retry-After';
  return null;
}

function scimBreach({ status, body, headers }: Response): string | null {
  if (typeof body !== 'object' || body === null) return 'a SCIM error without a JSON body';
  if (!Array.isArray(body.schemas) || body.schemas[0] !== 'urn:ietf:params:scim:api:messages:2.0:Error')
    return `${status} without the SCIM error schema`;
  if (body.status !== String(status))
    return `${status} whose body says status ${JSON.stringify(body.status)}`;
  if (typeof body.detail !== 'string') return `${status} without a string detail`;
  if (status === 401 && headers['www-authenticate'] === undefined) return '401 without WWW-Authenticate';
  if (status === 429 && headers['retry-after'] === undefined) return '429 without Retry-After';
  return null;
}

describe('fuzzing every operation of /openapi.json', () => {
  let t: TestApp;
  let callers: [string, () => Promise<Client>][];
  let doc: OpenApiDocument;
  const knownIds: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    const { orgId, owner } = await t.createOrg('Fuzz');
    const { owner: stranger } = await t.createOrg('Elsewhere');
    for (const client of [owner, stranger]) {
      const project = await client.post('/api/v1/projects', { name: 'Fuzzed' });
      knownIds.push(project.body.id);
    }
    const member = await t.createUser(orgId, 'member');
    const keys = await Promise.all([
      t.keyClient(owner, ['read']),
      t.keyClient(owner, ['write']),
      t.keyClient(owner, ['admin']),
    ]);
    // Sessions are signed in again for each operation: one may log itself out or be revoked.
    callers = [
      ['owner session', () => t.login(owner.user.email)],
      ['member session', () => t.login(member.user.email)],
      ['read key', async () => keys[0]],
      ['write key', async () => keys[1]],
      ['admin key', async () => keys[2]],
      ['another organization', () => t.login(stranger.user.email)],
      ['nobody', async () => t.anonymous],
    ];
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument;
  }, 60_000);
  afterAll(() => t?.close());

  it('answers no 5xx and keeps the error model, whoever calls with whatever', async () => {
    const { requestOf } = createArbitraries(doc, knownIds);
    const counts = { requests: 0, operations: 0, byStatus: new Map<number, number>() };
    const slowest = { ms: 0, what: '' };
    const breaches: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        counts.operations++;
        for (const [who, sign] of callers) {
          const client = await sign();
          await fc
            .assert(
              fc.asyncProperty(requestOf(path, operation), async ({ url, body }) => {
                const raw = body !== undefined && (typeof body !== 'object' || body === null);
                const { response, ms } = await timed(() =>
                  client.request(
                    method.toUpperCase() as 'GET',
                    url,
                    raw ? JSON.stringify(body) : body,
                    raw ? { 'content-type': 'application/json' } : {},
                  ),
                );
                if (ms > slowest.ms) Object.assign(slowest, { ms, what: `${method.toUpperCase()} ${url}` });
                counts.requests++;
                counts.byStatus.set(response.status, (counts.byStatus.get(response.status) ?? 0) + 1);
                const breach =
                  contractBreach(response, path) ??
                  (ms > SLOWEST_ALLOWED_MS ? `took ${ms.toFixed(0)} ms` : null);
                if (breach) {
                  breaches.push(
                    `${method.toUpperCase()} ${url} as ${who}: ${breach} ${JSON.stringify(response.body)?.slice(0, 200)}`,
                  );
                  // The log line of an unexpected error says what it was (its request id is the answer's).
                  const id = String(response.headers['x-request-id']);
                  const logged = t.logs.find((line) => line.includes(id) && line.includes('"err"'));
                  if (logged) breaches.push(`  logged: ${logged.slice(0, 600)}`);
                }
                return breach === null;
              }),
              { numRuns: RUNS },
            )
            .catch(() => {});
        }
      }
    }
    const statuses = [...counts.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`);
    const fives = [...counts.byStatus].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
    console.log(
      `fuzz: ${counts.requests} requests over ${counts.operations} operations × ${callers.length} callers; ` +
        `5xx = ${fives}; slowest ${slowest.ms.toFixed(0)} ms (${slowest.what}); ${statuses.join(', ')}`,
    );
    expect(breaches.slice(0, 20)).toEqual([]);
    expect(slowest.ms).toBeLessThan(SLOWEST_ALLOWED_MS);
  }, 600_000);

  it('answers hostile bodies on every operation with no 5xx, none slower than 10 s', async () => {
    const { requestOf } = createArbitraries(doc, knownIds);
    // The owner reaches the most code; a key and nobody check that nothing runs before authorization.
    const hostileCallers = callers.filter(([who]) => ['owner session', 'admin key', 'nobody'].includes(who));
    const counts = { requests: 0, operations: 0, fives: 0, byStatus: new Map<number, number>() };
    const slowest = { ms: 0, what: '' };
    const breaches: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        counts.operations++;
        // A project of the owner's in every path parameter, so that bodies get past the lookups
        // where they can; a body as the schema describes it to start from.
        const url = path.replace(/\{[^}]+\}/g, knownIds[0] ?? '');
        const [sample] = fc.sample(requestOf(path, operation), { numRuns: 1, seed: counts.operations });
        const bodies = hostileBodies(sample?.body, BODY_LIMIT);
        for (const [who, sign] of hostileCallers) {
          const client = await sign();
          for (const { name, text } of bodies) {
            const { response, ms } = await timed(() =>
              client.request(method.toUpperCase() as 'POST', url, text, {
                'content-type': 'application/json',
              }),
            );
            counts.requests++;
            counts.byStatus.set(response.status, (counts.byStatus.get(response.status) ?? 0) + 1);
            if (response.status >= 500 && response.status !== 502) counts.fives++;
            if (ms > slowest.ms)
              Object.assign(slowest, { ms, what: `${method.toUpperCase()} ${url} ${name}` });
            const breach =
              contractBreach(response, path) ?? (ms > SLOWEST_ALLOWED_MS ? `took ${ms.toFixed(0)} ms` : null);
            if (breach)
              breaches.push(
                `${method.toUpperCase()} ${url} as ${who} with ${name}: ${breach} ${JSON.stringify(response.body)?.slice(0, 200)}`,
              );
          }
        }
      }
    }
    const statuses = [...counts.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`);
    console.log(
      `fuzz (hostile bodies): ${counts.requests} requests over ${counts.operations} operations × ` +
        `${hostileCallers.length} callers; 5xx = ${counts.fives}; slowest ${slowest.ms.toFixed(0)} ms ` +
        `(${slowest.what}); ${statuses.join(', ')}`,
    );
    // Nothing sent reached Object.prototype (`__proto__` or `constructor.prototype` merged somewhere).
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    expect(breaches.slice(0, 20)).toEqual([]);
    expect(counts.fives).toBe(0);
    expect(slowest.ms).toBeLessThan(SLOWEST_ALLOWED_MS);
  }, 900_000);
});
