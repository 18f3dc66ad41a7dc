// Fuzzing from the contract (issue 21): every operation of the service's own /openapi.json is called
// with requests derived from its declared parameters and body (valid, boundary and invalid values,
// undeclared fields, bodies of the wrong type), as each kind of caller: a session, keys of each
// scope, the owner of another organization, nobody. No answer may be a 5xx (502 is allowed: a
// target on the loopback that does not answer), and every 4xx keeps the error model of API §2.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type Response, type TestApp } from '../support/app.ts';
import { createArbitraries, type OpenApiDocument } from '../support/openapi-arbitraries.ts';

/** Requests per operation and caller kind; FUZZ_RUNS raises it for a longer run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const LOCATIONS = ['body', 'query', 'path', 'header'];

/** What is wrong with an answer, or null: the error model of API §2. */
function contractBreach(response: Response): string | null {
  const { status, body } = response;
  if (status >= 500 && status !== 502) return `status ${status}`;
  if (status < 400) return null;
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
                const response = await client.request(
                  method.toUpperCase() as 'GET',
                  url,
                  raw ? JSON.stringify(body) : body,
                  raw ? { 'content-type': 'application/json' } : {},
                );
                counts.requests++;
                counts.byStatus.set(response.status, (counts.byStatus.get(response.status) ?? 0) + 1);
                const breach = contractBreach(response);
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
      `fuzz: ${counts.requests} requests over ${counts.operations} operations × ${callers.length} callers; 5xx = ${fives}; ${statuses.join(', ')}`,
    );
    expect(breaches.slice(0, 20)).toEqual([]);
  }, 600_000);
});
