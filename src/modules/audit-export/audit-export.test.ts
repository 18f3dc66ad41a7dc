// Audit export to real local receivers that speak each format: a signed http endpoint, Splunk's HEC
// (/services/collector/event) and Datadog's logs intake (/api/v2/logs). Passes are run directly (the
// schedule's work), and the app's clock is moved past the back-off.
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { type Receiver, startReceiver } from '../../../test/support/receivers.ts';
import { backoffSeconds } from './audit-exporter.ts';

const BASE = '/api/v1/admin/audit-export/sinks';

describe('audit export', () => {
  let t: TestApp;
  let receiver: Receiver;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({ webhooks: { allowPrivate: true, timeoutMs: 2_000 } });
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(() => t.close());

  const pass = () => t.composition.modules.find((m) => m.name === 'audit-export')!.schedules![0]!.run();

  async function org(name: string) {
    const { orgId, owner } = await t.createOrg(name);
    receiver = await startReceiver();
    receivers.push(receiver);
    return { orgId, owner };
  }

  async function chainSeqs(owner: Client): Promise<number[]> {
    const items = (await owner.get('/api/v1/audit?page_size=200')).body.items as { seq: number }[];
    return items.map((e) => e.seq).sort((a, b) => a - b);
  }

  it('exports to an http sink as signed JSON arrays, in seq order, and shows the cursor and lag', async () => {
    const { owner } = await org('Http export');
    for (const name of ['a', 'b']) await owner.post('/api/v1/projects', { name });
    const created = await owner.post(BASE, {
      type: 'http',
      url: `${receiver.url}/audit`,
      headers: { 'X-Tenant': 'acme' },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body).toMatchObject({
      type: 'http',
      has_token: false,
      header_names: ['X-Tenant'],
      last_exported_seq: 0,
    });
    const before = (await owner.get(`${BASE}/${created.body.id}`)).body;
    expect(before.lag).toBe((await chainSeqs(owner)).length);
    expect(before).not.toHaveProperty('secret');

    await pass();
    const [request] = await receiver.waitFor(1);
    expect(request!.path).toBe('/audit');
    expect(request!.headers['x-tenant']).toBe('acme');
    const batch = new Verifier(created.body.secret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    ) as {
      seq: number;
      hash: string;
    }[];
    const seqs = await chainSeqs(owner);
    expect(batch.map((e) => e.seq)).toEqual(seqs.slice(0, batch.length));
    expect(batch.map((e) => e.seq)).toEqual(batch.map((_, i) => i + 1));
    expect(batch[0]!.hash).toMatch(/^[0-9a-f]{64}$/);

    const after = (await owner.get(`${BASE}/${created.body.id}`)).body;
    expect(after.last_exported_seq).toBe(batch.at(-1)!.seq);
    expect(after.last_error).toBeNull();
    // Reading the sink wrote nothing, so only the entries after the batch remain.
    expect(after.lag).toBe(seqs.length - batch.length);
  });

  it('speaks Splunk HEC: one event per line with the Splunk token', async () => {
    const { owner } = await org('Splunk export');
    const missing = await owner.post(BASE, {
      type: 'splunk_hec',
      url: `${receiver.url}/services/collector/event`,
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'token']);
    const created = await owner.post(BASE, {
      type: 'splunk_hec',
      url: `${receiver.url}/services/collector/event`,
      token: 'hec-token-1',
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBeNull();
    expect(JSON.stringify((await owner.get(`${BASE}/${created.body.id}`)).body)).not.toContain('hec-token-1');
    await pass();
    const [request] = await receiver.waitFor(1);
    expect(request!.path).toBe('/services/collector/event');
    expect(request!.headers.authorization).toBe('Splunk hec-token-1');
    const lines = request!.body.split('\n').map((line) => JSON.parse(line));
    expect(lines.map((l) => l.event.seq)).toEqual(
      await chainSeqs(owner).then((s) => s.slice(0, lines.length)),
    );
    expect(lines[0]).toMatchObject({ sourcetype: 'dbops:audit', event: { action: expect.any(String) } });
    expect(typeof lines[0].time).toBe('number');
  });

  it('speaks the Datadog logs intake: a JSON array with the API key header', async () => {
    const { owner } = await org('Datadog export');
    const created = await owner.post(BASE, {
      type: 'datadog',
      url: `${receiver.url}/api/v2/logs`,
      token: 'dd-key',
    });
    expect(created.status).toBe(201);
    await pass();
    const [request] = await receiver.waitFor(1);
    expect(request!.path).toBe('/api/v2/logs');
    expect(request!.headers['dd-api-key']).toBe('dd-key');
    const logs = JSON.parse(request!.body);
    expect(Array.isArray(logs)).toBe(true);
    expect(logs[0]).toMatchObject({ ddsource: 'dbops', service: 'dbops', audit: { seq: 1 } });
  });

  it('resumes at its cursor after a receiver outage: in order, nothing skipped', async () => {
    const { owner } = await org('Outage');
    receiver.respond((_request, index) =>
      index < 3 ? { status: 503, body: 'maintenance' } : { status: 200 },
    );
    const { id } = (await owner.post(BASE, { type: 'http', url: `${receiver.url}/in` })).body;
    for (let round = 0; round < 3; round++) {
      await owner.post('/api/v1/projects', { name: `during outage ${round}` });
      await pass();
      const sink = (await owner.get(`${BASE}/${id}`)).body;
      expect(sink).toMatchObject({ last_exported_seq: 0, failures: round + 1 });
      expect(sink.last_error).toBe('The receiver answered 503: maintenance');
      expect(sink.lag).toBeGreaterThan(0);
      // Within the back-off nothing is sent.
      const sent = receiver.received.length;
      await pass();
      expect(receiver.received.length).toBe(sent);
      t.advance(backoffSeconds(round + 1) * 1000 + 1000);
    }
    await pass();
    const accepted = receiver.received
      .slice(3)
      .flatMap((r) => (JSON.parse(r.body) as { seq: number }[]).map((e) => e.seq));
    // Every failed attempt began at the cursor: the same first entry.
    expect(receiver.received.slice(0, 3).map((r) => JSON.parse(r.body)[0].seq)).toEqual([1, 1, 1]);
    const seqs = await chainSeqs(owner);
    expect(accepted).toEqual(seqs.slice(0, accepted.length));
    expect(accepted).toEqual(accepted.map((_, i) => i + 1));
    const sink = (await owner.get(`${BASE}/${id}`)).body;
    expect(sink).toMatchObject({ failures: 0, last_exported_seq: accepted.at(-1) });
    expect(sink.last_error).toBe('The receiver answered 503: maintenance');
  });

  it('tests a sink with one synthetic entry, without moving the cursor', async () => {
    const { owner } = await org('Tested');
    const { id, secret } = (await owner.post(BASE, { type: 'http', url: `${receiver.url}/t` })).body;
    const ok = await owner.post(`${BASE}/${id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, status_code: 200, error: null });
    const [request] = await receiver.waitFor(1);
    const batch = new Verifier(secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(batch).toMatchObject([{ seq: 0, action: 'audit_export.test' }]);
    receiver.respond(() => ({ status: 401, body: 'bad token' }));
    const refused = await owner.post(`${BASE}/${id}/test`);
    expect(refused.body).toEqual({
      ok: false,
      status_code: 401,
      error: 'The receiver answered 401: bad token',
    });
    expect((await owner.get(`${BASE}/${id}`)).body.last_exported_seq).toBe(0);
  });

  it('refuses refused addresses and bad URLs with 422', async () => {
    const { owner } = await org('Addresses');
    for (const url of ['http://169.254.169.254/', 'ftp://example.com/', 'nope']) {
      const response = await owner.post(BASE, { type: 'http', url });
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'url']);
    }
    expect((await owner.post(BASE, { type: 'syslog', url: receiver.url })).status).toBe(422);
  });

  it('is for organization admins: role, scope and organization', async () => {
    const { orgId, owner } = await org('Guarded');
    const { owner: stranger } = await org('Stranger');
    const { id } = (await owner.post(BASE, { type: 'http', url: `${receiver.url}/g` })).body;
    const member = await t.createUser(orgId, 'member');
    const routes: [string, string, unknown?][] = [
      ['GET', BASE],
      ['POST', BASE, { type: 'http', url: `${receiver.url}/x` }],
      ['GET', `${BASE}/${id}`],
      ['PATCH', `${BASE}/${id}`, { active: false }],
      ['POST', `${BASE}/${id}/test`],
      ['DELETE', `${BASE}/${id}`],
    ];
    for (const [method, url, body] of routes) {
      expect((await member.request(method as 'GET', url, body)).status, `member ${method} ${url}`).toBe(403);
    }
    for (const [method, url, body] of routes.filter(([, url]) => url !== BASE)) {
      const response = await stranger.request(method as 'GET', url, body);
      expect(response.status, `stranger ${method} ${url}`).toBe(404);
    }
    const reader = await t.keyClient(owner, ['read']);
    const writer = await t.keyClient(owner, ['write']);
    expect((await reader.get(`${BASE}/${id}`)).status).toBe(200);
    expect((await writer.patch(`${BASE}/${id}`, { active: false })).status).toBe(403);
    expect((await writer.post(BASE, { type: 'http', url: `${receiver.url}/y` })).status).toBe(403);
    expect((await t.anonymous.get(BASE)).status).toBe(401);
    const admin = await t.createUser(orgId, 'admin');
    expect((await admin.patch(`${BASE}/${id}`, { active: false })).body.active).toBe(false);
    expect((await admin.delete(`${BASE}/${id}`)).status).toBe(204);
    expect((await owner.get(`${BASE}/${id}`)).status).toBe(404);
  });
});
