// The authorization matrix: generated from the route table of the real app, every
// route that declares an action is called by every kind of caller (nobody, a revoked key, each
// organization role, each project role, just-in-time grants, keys of each scope, a key that may not
// exceed its owner, the owner of another organization) and must answer what src/security/policy.ts
// says; no answer with data may name a resource its caller may not see (another organization's, a
// project it has no role in). A route that declares no action must be one of the exceptions listed
// here, which have authentication of their own (public pages, sign-in, SSO, the payment provider's
// webhook, SCIM) and are checked against their own rules. So a new route without its rule, or a rule
// the route does not enforce, fails this suite.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/security/policy.ts';
import { createTestApp, type Response, type TestApp } from '../support/app.ts';
import { buildWorld } from '../support/authz-fixtures.ts';
import { ESCALATIONS, expectationOf, leakOf, problemOf, requestOf } from '../support/authz-requests.ts';
import type { World } from '../support/authz-world.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../support/databases.ts';
import { moduleRoutes, type RouteEntry, routeKey, servedRoutes } from '../support/route-table.ts';

/** Requests in flight at once: enough to keep the store busy, few enough for a 2-core machine. */
const CONCURRENCY = 6;
/** MATRIX_LOG=<file> writes every call (time, route, caller, expectation, answer), to review the answers. */
const LOG = process.env.MATRIX_LOG;

type Who = 'nobody' | 'session' | 'key' | 'scim';

interface ExceptionCall {
  as: Who;
  body?: unknown;
  expect: (status: number) => boolean;
  says: string;
}

interface Exception {
  match: RegExp;
  why: string;
  calls: ExceptionCall[];
}

const is =
  (...statuses: number[]) =>
  (status: number) =>
    statuses.includes(status);
const notRefused = (status: number) => status !== 401 && status !== 403 && status < 500;

/** Routes with authentication of their own, matched on `METHOD /path` (parameters written `:`). */
const EXCEPTIONS: Exception[] = [
  {
    match: /^GET \/(healthz|readyz|openapi\.json|web-config\.json)$/,
    why: 'health checks and public documents: anyone may read them',
    calls: [{ as: 'nobody', expect: is(200), says: '200' }],
  },
  {
    // Present when web/dist holds a build (the web tests and `npm start` make one): a route per file.
    match: /^GET \/(?!api\/|scim\/)[^:*]*\.[a-z0-9]+$/,
    why: "the web application's built files, public like the page that loads them",
    calls: [{ as: 'nobody', expect: notRefused, says: 'neither 401, 403 nor 5xx' }],
  },
  {
    match: /^GET \/docs(\/|$)/,
    why: 'the interactive API docs are public',
    calls: [{ as: 'nobody', expect: notRefused, says: 'neither 401, 403 nor 5xx' }],
  },
  {
    match: /^POST \/api\/v1\/auth\/login$/,
    why: 'sign-in: the credentials are the body, checked by the route',
    calls: [
      {
        as: 'nobody',
        body: { email: 'nobody@example.com', password: 'wrong password' },
        expect: is(401),
        says: '401 for wrong credentials',
      },
    ],
  },
  {
    match: /^POST \/api\/v1\/auth\/login\/2fa$/,
    why: 'the second step of sign-in: the partial token and the code are the credentials',
    calls: [
      { as: 'nobody', body: { partial_token: 'x'.repeat(43), code: '000000' }, expect: is(401), says: '401' },
    ],
  },
  {
    match: /^POST \/api\/v1\/auth\/signup$/,
    why: 'sign-up makes a new organization; open to anyone while SIGNUP is open',
    calls: [
      {
        as: 'nobody',
        body: {
          email: `signup-${randomUUID()}@example.com`,
          password: 'correct horse battery staple',
          name: 'New',
          organization_name: 'New Org',
        },
        expect: is(201),
        says: '201',
      },
    ],
  },
  {
    match: /^GET \/api\/v1\/auth\/oauth\/:\/(authorize|callback)$/,
    why: 'OAuth: the browser comes without credentials; the state and the provider authenticate',
    calls: [{ as: 'nobody', expect: notRefused, says: 'neither 401, 403 nor 5xx' }],
  },
  {
    match: /^GET \/api\/v1\/auth\/saml\/:\/(metadata|login)$/,
    why: 'SAML service-provider endpoints: reached by a browser without a session',
    calls: [{ as: 'nobody', expect: notRefused, says: 'neither 401, 403 nor 5xx' }],
  },
  {
    match: /^POST \/api\/v1\/auth\/saml\/:\/acs$/,
    why: 'SAML assertion consumer: the signed assertion is the credential',
    calls: [{ as: 'nobody', body: { SAMLResponse: 'bm90IGEgcmVzcG9uc2U=' }, expect: is(401), says: '401' }],
  },
  {
    match: /^POST \/api\/v1\/billing\/webhooks\/stripe$/,
    why: "the payment provider's events: the Stripe-Signature header is the credential",
    calls: [{ as: 'nobody', body: { id: 'evt_1', type: 'invoice.paid' }, expect: is(400), says: '400' }],
  },
  {
    match: /^POST \/api\/v1\/auth\/logout$/,
    why: 'ends the session it is called with: any session, never a key',
    calls: [
      { as: 'nobody', expect: is(401), says: '401' },
      { as: 'key', expect: is(403), says: '403' },
      { as: 'session', expect: is(204), says: '204' },
    ],
  },
  {
    match: /^[A-Z]+ \/scim\/v2\//,
    why: "SCIM: the organization's SCIM bearer token only; sessions and API keys are not SCIM clients",
    calls: [
      { as: 'nobody', expect: is(401), says: '401' },
      { as: 'session', expect: is(401), says: '401' },
      { as: 'key', expect: is(401), says: '401' },
      { as: 'scim', body: {}, expect: notRefused, says: 'neither 401, 403 nor 5xx' },
    ],
  },
];

const exceptionOf = (key: string) => EXCEPTIONS.find((exception) => exception.match.test(key));

/** Runs `work` over `items`, `limit` at a time. */
async function pooled<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

const available = await pgAvailable();
if (!available) reportSkipped('the authorization matrix', 'PostgreSQL', testPgUrl);

describe.skipIf(!available)('authorization matrix, generated from the route table', () => {
  let t: TestApp;
  let targets: (TestPgDatabase | undefined)[] = [];
  let world: World;
  let routes: RouteEntry[];

  beforeAll(async () => {
    // Webhooks and audit sinks on the loopback (a closed port), so that no call leaves the machine.
    t = await createTestApp({
      webhooks: { allowPrivate: true, timeoutMs: 1_000 },
      // The payment provider's endpoint answers 404 until it has a secret to check signatures with.
      billing: { stripeWebhookSecret: 'whsec_matrix' },
    });
    targets = await Promise.all([createTestPgDatabase(), createTestPgDatabase()]);
    const [target, other] = targets;
    if (!target || !other) throw new Error('the test PostgreSQL server went away');
    world = await buildWorld(t, target.url, other.url);
    routes = await moduleRoutes(t.composition);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    for (const target of targets) await target?.drop();
  });

  it('has a rule or a listed exception for every route the app serves', () => {
    const declared = new Map(routes.map((route) => [routeKey(route.method, route.url), route]));
    const served = servedRoutes(t.app).map((route) => routeKey(route.method, route.url));
    expect(served.length).toBeGreaterThan(100);
    const unruled = served.filter((key) => {
      const route = declared.get(key);
      if (exceptionOf(key)) return route?.config.action !== undefined;
      return !route?.config.action || !(route.config.action in ACTIONS) || route.config.auth === 'public';
    });
    expect(unruled, 'routes with no rule in ACTIONS and no listed exception (or both)').toEqual([]);
    expect(
      [...declared.keys()].filter((key) => !served.includes(key)),
      'declared but not served',
    ).toEqual([]);
  });

  // Before the matrix below decides the fixture approval: `can_decide` is the same rule as deciding.
  it('says can_decide on an approval exactly where the caller may approve it', async () => {
    const decide = routes.find((route) => routeKey(route.method, route.url) === 'PATCH /api/v1/approvals/:');
    if (!decide) throw new Error('no route decides approvals');
    const problems: string[] = [];
    let checked = 0;
    for (const caller of world.callers) {
      const read = await caller.client.get(`/api/v1/approvals/${world.ids.approval}`);
      if (read.status !== 200) continue;
      checked++;
      const expectation = expectationOf(decide, caller, await requestOf(decide, caller, world), world);
      const own = read.body.requested_by === caller.client.user.id;
      const expected = expectation.allowed && !own;
      if (read.body.can_decide !== expected)
        problems.push(`${caller.name}: can_decide ${read.body.can_decide}, expected ${expected}`);
    }
    expect(checked).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });

  it('answers every caller of every ruled route as the policy says', async () => {
    const started = Date.now();
    const ruled = routes.filter((route) => route.config.action !== undefined);
    // Each route once with its plain request, and once per escalation it has (a body that asks more).
    const cases = ruled.flatMap((route) =>
      [undefined, ...(ESCALATIONS[routeKey(route.method, route.url)] ?? [])].flatMap((escalation) =>
        world.callers.map((caller) => ({ route, caller, escalation })),
      ),
    );
    const problems: string[] = [];
    let denied = 0;
    /** What the allowed calls got: mostly 2xx, or the summary says the matrix checks little. */
    const allowedAnswers = new Map<number, number>();
    const log: string[] = [];
    await pooled(cases, CONCURRENCY, async ({ route, caller, escalation }) => {
      const request = await requestOf(route, caller, world, escalation);
      const expectation = expectationOf(route, caller, request, world, escalation);
      const what = `${route.method} ${route.url}${escalation ? ` (${escalation.name})` : ''}`;
      const sent = Date.now();
      const response = await caller.client.request(request.method as 'GET', request.url, request.body);
      if (expectation.allowed)
        allowedAnswers.set(response.status, (allowedAnswers.get(response.status) ?? 0) + 1);
      else denied++;
      const problem = problemOf(expectation, request, response) ?? leakOf(caller, response, world);
      if (problem) problems.push(`${what} as ${caller.name}: ${problem}`);
      if (LOG)
        log.push(
          [
            Date.now() - sent,
            what,
            caller.name,
            expectation.allowed ? 'allowed' : expectation.status,
            response.status,
            JSON.stringify(response.body)?.slice(0, 160),
          ].join('\t'),
        );
    });
    const answers = [...allowedAnswers].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    console.log(
      `authorization matrix: ${ruled.length} routes × ${world.callers.length} callers = ${cases.length} checks ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s; ${denied} to be denied, ` +
        `${cases.length - denied} allowed (${answers.join(', ')})`,
    );
    if (LOG) writeFileSync(LOG, `${log.sort().join('\n')}\n`);
    expect(problems.sort()).toEqual([]);
  }, 120_000);

  it('answers the routes with their own authentication as their own rules say', async () => {
    const owner = world.callers.find((caller) => caller.name === 'org owner')!;
    const key = world.callers.find((caller) => caller.name === "owner's admin key")!;
    const token = await owner.client.post('/api/v1/admin/scim/token');
    expect(token.status).toBe(201);
    // Raw calls: the answers of public pages and SSO endpoints are HTML, XML or redirects, not JSON.
    const raw = async (method: string, url: string, body: unknown, bearer?: string): Promise<Response> => {
      const answer = await t.app.inject({
        method: method as 'GET',
        url,
        headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
        ...(body !== undefined && method !== 'GET' && method !== 'DELETE' && { payload: body as object }),
      });
      return { status: answer.statusCode, headers: answer.headers, body: answer.body };
    };
    const problems: string[] = [];
    let checks = 0;
    const served = servedRoutes(t.app);
    for (const route of served) {
      const exception = exceptionOf(routeKey(route.method, route.url));
      if (!exception) continue;
      const url = route.url
        .replace(/:org_id/, world.orgId)
        .replace(/:provider/, 'google')
        .replace(/\*/, 'index.html')
        .replace(/:[^/]+/g, () => randomUUID());
      for (const call of exception.calls) {
        const method = route.method as 'GET';
        const body = method === 'GET' ? undefined : call.body;
        const response =
          call.as === 'scim'
            ? await raw(method, url, body, token.body.token)
            : call.as === 'nobody'
              ? await raw(method, url, body)
              : call.as === 'key'
                ? await key.client.request(method, url, body)
                : // A session of its own: the call may end it (logout).
                  await (await t.login(owner.client.user.email)).request(method, url, body);
        checks++;
        if (!call.expect(response.status))
          problems.push(
            `${route.method} ${route.url} as ${call.as}: expected ${call.says} (${exception.why}), got ${response.status}`,
          );
      }
    }
    console.log(`authorization matrix: ${checks} checks of routes with their own authentication`);
    expect(problems).toEqual([]);
  }, 60_000);
});
