// The address guard at connect time: the socket goes to the address the guard vetted (no second DNS
// answer), and a name whose answer turned private since the save is refused before any byte is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { type Receiver, startReceiver } from '../../../test/support/receivers.ts';

describe('webhook addresses at connect time', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let receiver: Receiver;
  /** What the fake resolver answers for each name (the system resolver knows none of them). */
  const answers = new Map<string, string[]>();

  async function deliveries(id: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const items = (await owner.get(`/api/v1/webhooks/${id}/deliveries`)).body.items;
      if (items[0]?.attempts >= 1 || Date.now() > deadline) return items;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    t = await createTestApp({
      work: true,
      webhooks: { allowPrivate: false, retrySchedule: [3600] },
      resolveHost: async (host) => answers.get(host) ?? [],
    });
    ({ owner } = await t.createOrg('Rebinding'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Hooks' })).body.id;
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('refuses at connect a name that resolved to a public address at save and to loopback since', async () => {
    const port = new URL(receiver.url).port;
    answers.set('rebind.example', ['93.184.215.14']);
    const created = await owner.post(`/api/v1/projects/${projectId}/webhooks`, {
      url: `http://rebind.example:${port}/hook`,
      events: ['*'],
    });
    expect(created.status).toBe(201);
    answers.set('rebind.example', ['127.0.0.1']);
    await owner.post(`/api/v1/webhooks/${created.body.id}/test`);
    const [delivery] = await deliveries(created.body.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(delivery.last_error).toContain('Address refused: rebind.example resolves to 127.0.0.1');
    expect(receiver.received).toHaveLength(0);
  });
});

describe('webhook delivery to the vetted address', () => {
  it('connects to the address the guard resolved, keeping the name in the Host header', async () => {
    const receiver = await startReceiver();
    const t = await createTestApp({
      work: true,
      webhooks: { allowPrivate: true },
      resolveHost: async (host) => (host === 'hooks.internal.test' ? ['127.0.0.1'] : []),
    });
    try {
      const { owner } = await t.createOrg('Pinned');
      const projectId = (await owner.post('/api/v1/projects', { name: 'P' })).body.id;
      const port = new URL(receiver.url).port;
      const created = await owner.post(`/api/v1/projects/${projectId}/webhooks`, {
        url: `http://hooks.internal.test:${port}/in`,
        events: ['*'],
      });
      expect(created.status).toBe(201);
      await owner.post(`/api/v1/webhooks/${created.body.id}/test`);
      const [request] = await receiver.waitFor(1);
      // The system resolver does not know this name: only the vetted address can have been used.
      expect(request!.headers.host).toBe(`hooks.internal.test:${port}`);
      expect(request!.path).toBe('/in');
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
