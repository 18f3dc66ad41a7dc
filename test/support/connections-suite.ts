// The world of a connections suite: an app (names do not resolve: there is no real DNS here), an
// organization with a project and another organization, clients whose every answer is kept, and
// the passwords given to the API, so that the suite can end by proving none of them came back in
// an answer, a log line or an audit entry. `connectionsSuite` registers its own beforeAll/afterAll.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Client, clientOf, createTestApp, type Response, type TestApp } from './app.ts';
import { connectionBody, responseText, secretPassword } from './connections.ts';
import { freePort } from './targets.ts';

const BASE = '/api/v1/connections';

export interface ConnectionsSuite {
  /** Set once the suite's beforeAll has run. */
  t: TestApp;
  owner: Client;
  other: Client;
  orgId: string;
  projectId: string;
  /** Every password given to the API in this suite: none may come back anywhere. */
  secrets: string[];
  /** Every answer a watched client got. */
  answers: Response[];
  /** A client whose every answer is kept for the final "no password anywhere" check. */
  watch(client: Client): Client;
  /** A new password, remembered as a secret. */
  password(): string;
  /** A connection to a closed port on 127.0.0.1: creating it connects nowhere, testing it fails fast. */
  closedPortConnection(
    client: Client,
    overrides?: Record<string, unknown>,
  ): Promise<{ id: string; name: string; updated_at: string }>;
}

export function connectionsSuite(): ConnectionsSuite {
  const suite = {
    secrets: [],
    answers: [],
    watch(client) {
      const request: Client['request'] = async (...args) => {
        const response = await client.request(...args);
        suite.answers.push(response);
        return response;
      };
      return clientOf(client.user, request);
    },
    password() {
      const secret = secretPassword();
      suite.secrets.push(secret);
      return secret;
    },
    async closedPortConnection(client, overrides = {}) {
      const response = await client.post(
        BASE,
        connectionBody(suite.projectId, `postgres://app@127.0.0.1:${await freePort()}/app`, {
          password: suite.password(),
          ...overrides,
        }),
      );
      expect(response.status).toBe(201);
      return response.body as { id: string; name: string; updated_at: string };
    },
  } as Partial<ConnectionsSuite> as ConnectionsSuite;
  beforeAll(async () => {
    suite.t = await createTestApp({
      targets: { connectTimeoutMs: 3_000 },
      // No real DNS: names used here do not resolve (they are accepted, and refused at connect time).
      resolveHost: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    const org = await suite.t.createOrg('Acme');
    suite.orgId = org.orgId;
    suite.owner = suite.watch(org.owner);
    suite.other = suite.watch((await suite.t.createOrg('Other')).owner);
    suite.projectId = (await suite.owner.post('/api/v1/projects', { name: 'Payments' })).body.id;
  });
  afterAll(async () => {
    await suite.t?.close();
  });
  return suite;
}

/**
 * The suite's last test: none of its passwords in any answer it got, in the app's log lines or in
 * the audit trail, and no answer with a `password` field. `least`: how many passwords and answers
 * the suite must have made for the check to mean something.
 */
export function itNeverShowsAPassword(suite: ConnectionsSuite, least: { secrets: number; answers: number }) {
  it('never shows a password: not in answers, log lines or audit entries', async () => {
    expect(suite.secrets.length).toBeGreaterThanOrEqual(least.secrets);
    expect(suite.answers.length).toBeGreaterThanOrEqual(least.answers);
    const everything = [
      ...suite.answers.map(responseText),
      suite.t.logs.join('\n'),
      JSON.stringify(await suite.t.store.db.selectFrom('audit_log').selectAll().execute()),
    ].join('\n');
    for (const secret of suite.secrets) expect(everything).not.toContain(secret);
    for (const answer of suite.answers) {
      const items = answer.body?.items ?? [answer.body];
      for (const item of items)
        if (item && typeof item === 'object') expect(item).not.toHaveProperty('password');
    }
  });
}
