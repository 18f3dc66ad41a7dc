// A module plugs in through its declaration alone: given to the composition root beside the others,
// its routes answer under /api/v1 behind the same authentication, its run kind is worked with its
// requester checked, its mount answers outside /api/v1, and its command is listed.
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorOf } from '../../test/support/actors.ts';
import { createTestApp, type TestApp } from '../../test/support/app.ts';
import { recordQueuedRun, waitForRun } from '../../test/support/operations.ts';
import { MODULES } from './index.ts';
import type { ModuleFactory } from './module.ts';
import { seedsModule } from './seeds/seeds.module.ts';

const worked: string[] = [];

const echoModule: ModuleFactory = ({ now }) => ({
  name: 'echo',
  routes(api) {
    api.get('/echo', { config: { action: 'projects.list' }, schema: { hide: true } }, async () => ({
      at: now().toISOString(),
    }));
  },
  runKinds: [
    {
      kind: 'seed_run',
      action: 'project.read',
      params: Type.Object({}),
      touches: () => ({ writes: [] }),
      handler: async (run, context) => {
        await context.progress(1, 1);
        worked.push(run.id);
        return { echoed: true };
      },
    },
  ],
  mounts: [
    {
      prefix: '/echo-outside',
      register: async (app) => {
        app.get('/', { schema: { hide: true } }, async () => ({ outside: true }));
      },
    },
  ],
  commands: [{ name: 'echo', usage: 'echo', run: async (args) => args.join(' ') }],
});

describe('a module plugs in by its declaration', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Every run kind has its module now: the echo module takes seed_run's place.
    t = await createTestApp({
      work: true,
      modules: [...MODULES.filter((m) => m !== seedsModule), echoModule],
    });
  });
  afterAll(() => t.close());

  it('serves its routes behind the API authentication, and its mount outside it', async () => {
    expect((await t.anonymous.get('/api/v1/echo')).status).toBe(401);
    const { owner } = await t.createOrg('Echo');
    const answer = await owner.get('/api/v1/echo');
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-limit']).toBeDefined();
    const outside = await t.app.inject({ method: 'GET', url: '/echo-outside/' });
    expect(outside.json()).toEqual({ outside: true });
  });

  it('works its run kind through the queue and lists its command', async () => {
    const { orgId, owner } = await t.createOrg('Runner');
    const projectId = (await owner.post('/api/v1/projects', { name: 'Echoes' })).body.id;
    const run = await recordQueuedRun(t, actorOf(owner, orgId), { projectId, kind: 'seed_run' });
    await t.composition.runs.enqueue(run);
    const done = await waitForRun(owner, run.id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', result: { echoed: true } });
    expect(worked).toEqual([run.id]);
    expect(t.composition.runKinds.get('seed_run')?.action).toBe('project.read');
    const command = t.composition.modules.flatMap((m) => m.commands ?? []).find((c) => c.name === 'echo');
    expect(await command?.run(['hello', 'there'])).toBe('hello there');
  });
});
