// Finding 5 of the attack: the address guard let through IPv6 forms that carry a refused IPv4
// address. The metadata address as `::a9fe:a9fe` (IPv4-compatible) and `64:ff9b::a9fe:a9fe` (NAT64)
// was a valid connection host; `http://[::127.0.0.1]/` and `http://[64:ff9b::7f00:1]/` were valid
// webhook URLs. docs/contract.md §11.1 judges every such form by the IPv4 address it carries, at save and again
// at connect, for connections, webhooks and audit sinks alike (one classifier). Targets are never
// reached: the dialects refuse any non-loopback connect, and the refused names resolve through a
// fake resolver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';
import { connectionBody, type WatchedDialects, watchedDialects } from '../support/connections.ts';

/** The forms of 169.254.169.254 an attacker writes, one per way an IPv6 address carries IPv4. */
const METADATA_FORMS = [
  '::a9fe:a9fe', // IPv4-compatible
  '::169.254.169.254',
  '::ffff:a9fe:a9fe', // IPv4-mapped
  '::ffff:0:a9fe:a9fe', // IPv4-translated
  '64:ff9b::a9fe:a9fe', // NAT64
  '2002:a9fe:a9fe::1', // 6to4
  '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo, client 169.254.169.254 (inverted bits)
];
/** Loopback in the same forms (webhooks and sinks refuse loopback unless WEBHOOK_ALLOW_PRIVATE). */
const LOOPBACK_FORMS = ['::127.0.0.1', '::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1', '::ffff:0:7f00:1'];

describe('address guard: IPv6 forms carrying a refused IPv4 address', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let watched: WatchedDialects;
  const answers = new Map<string, string[]>();

  beforeAll(async () => {
    watched = watchedDialects();
    t = await createTestApp({
      dialects: watched.dialects,
      webhooks: { allowPrivate: false },
      resolveHost: async (host) => answers.get(host) ?? [],
    });
    ({ owner } = await t.createOrg('Embedded IPv4'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Guarded' })).body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const createConnection = (host: string) =>
    owner.post(
      '/api/v1/connections',
      connectionBody(projectId, 'postgres://app@127.0.0.1:5432/app', { host }),
    );

  it('refuses a connection host that is the metadata address in any IPv6 form', async () => {
    for (const host of METADATA_FORMS) {
      const response = await createConnection(host);
      expect(response.status, host).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'host']);
      expect(response.body.detail[0].msg).toMatch(/cloud metadata address/);
    }
    expect((await owner.get(`/api/v1/connections?project_id=${projectId}`)).body.total).toBe(0);
  });

  it('refuses a name whose DNS answer is such a form, at save and at connect', async () => {
    answers.set('nat64.example.test', ['64:ff9b::a9fe:a9fe']);
    const refused = await createConnection('nat64.example.test');
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].msg).toContain('resolves to 64:ff9b::a9fe:a9fe, a cloud metadata address');

    answers.set('moving.example.test', ['93.184.215.14']);
    const created = await createConnection('moving.example.test');
    expect(created.status).toBe(201);
    answers.set('moving.example.test', ['::a9fe:a9fe']);
    const tested = await owner.post(`/api/v1/connections/${created.body.id}/test`);
    expect(tested.body).toMatchObject({
      ok: false,
      error: { cause: 'permission_denied', message: expect.stringContaining('::a9fe:a9fe') },
    });
    expect(watched.opened).toEqual([]);
    expect(watched.tested).toEqual([]);
  });

  it('refuses webhook URLs whose host carries loopback or the metadata address', async () => {
    for (const host of [...LOOPBACK_FORMS, ...METADATA_FORMS]) {
      const url = `http://[${host}]/hook`;
      const response = await owner.post(`/api/v1/projects/${projectId}/webhooks`, { url, events: ['*'] });
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'url']);
    }
    expect((await owner.get(`/api/v1/projects/${projectId}/webhooks`)).body.items).toEqual([]);
  });

  it('refuses audit sink URLs whose host carries loopback or the metadata address', async () => {
    for (const host of [...LOOPBACK_FORMS, ...METADATA_FORMS]) {
      const url = `https://[${host}]/sink`;
      const response = await owner.post('/api/v1/admin/audit-export/sinks', { type: 'http', url });
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'url']);
    }
  });
});
