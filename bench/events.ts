// The events bench: fan-out of the event outbox to webhooks, and what an event costs the
// change that emits it.
//
// 1. Fan-out: BENCH_EVENTS (default 10,000) events emitted into the outbox, three webhooks of the
//    project subscribed to everything, each on its own HTTP receiver on loopback answering 204. The
//    service's own jobs (fan-out pass, one delivery job per delivery) send them; measured from the
//    first emit to the last delivery received: deliveries per second.
// 2. Overhead (webhooks removed first, so no delivery competes for the CPU): the same state change (a transaction that updates a project's row and writes its audit
//    entry, as every service does) with and without an event emitted in it, one after the other,
//    BENCH_EVENT_CHANGES (default 2,000) times each: the time per change and the ratio.
//
// The service runs in this process on the test harness's store (PostgreSQL when TEST_PG_URL's
// server answers, PGlite otherwise), as the tests run it.
import { performance } from 'node:perf_hooks';
import { systemActor } from '../src/core/actors.ts';
import { createTestApp, type TestApp } from '../test/support/app.ts';
import { type Receiver, startReceiver } from '../test/support/receivers.ts';
import { positiveNumber } from './env.ts';
import { updateResults } from './results.ts';

const RECEIVERS = 3;
const EMIT_CONCURRENCY = 8;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(2)} ms`;
const log = (message: string) => console.error(`[events] ${message}`);

async function inParallel(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    while (next < count) await work(next++);
  });
  await Promise.all(lanes);
}

/** Time per change of `count` sequential changes. */
async function perChange(count: number, change: () => Promise<void>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await change();
  return (performance.now() - started) / count;
}

export async function runEventsBench(): Promise<boolean> {
  const events = Math.round(positiveNumber('BENCH_EVENTS', 10_000));
  const changes = Math.round(positiveNumber('BENCH_EVENT_CHANGES', 2_000));
  const receivers: Receiver[] = [];
  let t: TestApp | undefined;
  try {
    t = await createTestApp({ work: true, webhooks: { allowPrivate: true, retrySchedule: [5, 30] } });
    const app = t;
    const { orgId, owner } = await app.createOrg('Events bench');
    const projectId = (await owner.post('/api/v1/projects', { name: 'Fan-out' })).body.id as string;
    for (let i = 0; i < RECEIVERS; i++) {
      const receiver = await startReceiver();
      receiver.respond(() => ({ status: 204 }));
      receivers.push(receiver);
      const hook = await owner.post(`/api/v1/projects/${projectId}/webhooks`, {
        url: `${receiver.url}/hook`,
        events: ['*'],
      });
      if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    }

    log(`fan-out: ${fmt(events)} events to ${RECEIVERS} receivers`);
    const started = performance.now();
    await inParallel(events, EMIT_CONCURRENCY, (i) =>
      app.store.db
        .transaction()
        .execute((trx) =>
          app.composition.events.emit(trx, { type: 'run.failed', orgId, projectId, data: { n: i } }),
        )
        .then(() => undefined),
    );
    const emitted = performance.now() - started;
    const expected = events * RECEIVERS;
    await Promise.all(receivers.map((r) => r.waitFor(events, 30 * 60_000)));
    const delivered = performance.now() - started;
    const received = receivers.reduce((sum, r) => sum + r.received.length, 0);

    // The overhead is the emit's own cost in its transaction: with no webhook left, the fan-out
    // passes that follow only mark events dispatched and send nothing that would share the CPU.
    await app.store.db.deleteFrom('webhooks').where('project_id', '=', projectId).execute();
    log(`overhead: ${fmt(changes)} changes with and without an event`);
    const actor = systemActor('events bench');
    const change = (withEvent: boolean) => async () => {
      await app.store.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('projects')
          .set({ updated_at: app.now() })
          .where('id', '=', projectId)
          .execute();
        await app.composition.audit.record(trx, actor, {
          action: 'bench.change',
          orgId,
          projectId,
          target: { type: 'project', id: projectId },
        });
        if (withEvent) {
          await app.composition.events.emit(trx, {
            type: 'run.failed',
            orgId,
            projectId,
            data: { bench: true },
          });
        }
      });
    };
    // Warm both paths, then alternate halves so drift in the machine's load hits both alike.
    await perChange(100, change(false));
    await perChange(100, change(true));
    const half = Math.max(1, Math.floor(changes / 2));
    const without = ((await perChange(half, change(false))) + (await perChange(half, change(false)))) / 2;
    const withEvent = ((await perChange(half, change(true))) + (await perChange(half, change(true)))) / 2;

    const rate = (received / delivered) * 1000;
    const lines = [
      '# Events: outbox fan-out to webhooks, and the cost of an event in its change',
      '',
      `Run ${new Date().toISOString()}, ${fmt(events)} events, ${RECEIVERS} webhooks subscribed to all (one`,
      'receiver each on loopback, answering 204), sent by the service’s own jobs in this process.',
      '',
      '| Measure | Value |',
      '|---|---|',
      `| Events emitted (${EMIT_CONCURRENCY} concurrent transactions) | ${fmt(events)} in ${fmt(emitted)} ms (${fmt((events / emitted) * 1000)}/s) |`,
      `| Deliveries received / expected | ${fmt(received)} / ${fmt(expected)} |`,
      `| First emit to last delivery | ${fmt(delivered)} ms |`,
      `| Deliveries per second | ${fmt(rate)} |`,
      `| A change (update + audit entry), no event | ${ms(without)} |`,
      `| The same change emitting an event | ${ms(withEvent)} (${(withEvent / without).toFixed(2)}×, +${ms(withEvent - without)}) |`,
      '',
    ];
    const markdown = lines.join('\n');
    process.stdout.write(`\n${markdown}\n`);
    await updateResults('events', markdown);
    return received >= expected;
  } catch (error) {
    console.error(error);
    return false;
  } finally {
    for (const receiver of receivers) await receiver.close();
    await t?.close();
  }
}
