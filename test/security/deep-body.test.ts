// Found from outside: a body nested 50,000 levels deep sent to the public signup route answered 500
// after about 8 s (a recursive body walker overflowed the stack) while /healthz waited as long. docs/contract.md §1:
// at most 32 levels, 422 `too_deep` on `body`, answered before any other work, on every route. Checked
// on a listening server over real HTTP, with /healthz timed while the deep bodies are in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH } from '../../src/http/body-depth.ts';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';

/** `{"<field>": [[[ … ]]]}`: an object holding arrays nested so that the body has `depth` levels. */
const nestedBody = (field: string, depth: number) =>
  `{"${field}":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

const TOO_DEEP = {
  detail: [
    {
      loc: ['body'],
      msg: `The body must not nest objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
      type: 'too_deep',
    },
  ],
};

describe('deep bodies', () => {
  let t: TestApp;
  let owner: Client;
  let base: string;
  let scimToken: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Deep bodies'));
    scimToken = (await owner.post('/api/v1/admin/scim/token')).body.token;
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  const send = async (url: string, body: string, headers: Record<string, string> = {}) => {
    const started = performance.now();
    const response = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text), ms: performance.now() - started };
  };
  const health = async () => {
    const started = performance.now();
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(20_000) });
    await response.text();
    return { status: response.status, ms: performance.now() - started };
  };

  it('answers a 50,000-level signup 422 too_deep in under 500 ms, /healthz answering meanwhile', async () => {
    const deep = nestedBody('email', 50_000);
    // Several at once, as an attacker would send them, and /healthz asked every 20 ms while they
    // are in flight: its slowest answer is what a load balancer would have seen.
    let inFlight = true;
    const attacks = Promise.all(Array.from({ length: 8 }, () => send('/api/v1/auth/signup', deep))).finally(
      () => {
        inFlight = false;
      },
    );
    const probes: { status: number; ms: number }[] = [];
    while (inFlight) {
      probes.push(await health());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answers = await attacks;
    const slowest = Math.max(...answers.map((a) => a.ms));
    const slowestHealth = Math.max(...probes.map((p) => p.ms));
    console.log(
      `deep bodies: 8 × 50,000 levels, slowest ${slowest.toFixed(0)} ms; ` +
        `/healthz asked ${probes.length} times meanwhile, slowest ${slowestHealth.toFixed(0)} ms`,
    );
    for (const answer of answers) {
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual(TOO_DEEP);
      expect(answer.ms).toBeLessThan(500);
    }
    expect(probes.every((p) => p.status === 200)).toBe(true);
    expect(slowestHealth).toBeLessThan(500);
  });

  it('takes 32 levels and refuses 33, counting only brackets outside strings', async () => {
    const atBound = await send('/api/v1/auth/signup', nestedBody('email', MAX_BODY_DEPTH));
    expect(atBound.status).toBe(422);
    expect(atBound.body.detail[0].type).not.toBe('too_deep');
    const overBound = await send('/api/v1/auth/signup', nestedBody('email', MAX_BODY_DEPTH + 1));
    expect(overBound.body).toEqual(TOO_DEEP);
    // Brackets inside a string (escaped quotes included) are text, not nesting.
    const inText = await send('/api/v1/auth/signup', JSON.stringify({ email: `\\"${'['.repeat(1000)}` }));
    expect(inText.status).toBe(422);
    expect(inText.body.detail[0].type).not.toBe('too_deep');
  });

  it('refuses them on authenticated routes, on SCIM and on the payment webhook alike', async () => {
    const deep = nestedBody('name', 50_000);
    const key = await t.keyClient(owner, ['admin']);
    const project = await send('/api/v1/projects', deep, { authorization: `Bearer ${key.secret}` });
    expect(project.status).toBe(422);
    expect(project.body).toEqual(TOO_DEEP);

    const scim = await send('/scim/v2/Users', nestedBody('userName', 50_000), {
      authorization: `Bearer ${scimToken}`,
      'content-type': 'application/scim+json',
    });
    expect(scim.status).toBe(422);
    expect(scim.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    expect(scim.ms).toBeLessThan(500);

    const stripe = await send('/api/v1/billing/webhooks/stripe', nestedBody('data', 50_000));
    expect(stripe.status).toBe(422);
    expect(stripe.body).toEqual(TOO_DEEP);
  });
});
