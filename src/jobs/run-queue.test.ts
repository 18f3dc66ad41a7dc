// A run starts as soon as it is queued, not at the worker's next poll: the runs' queue wakes its
// workers through LISTEN/NOTIFY, also when another process (an API that works no jobs) sent it.
// The workers here poll every 30 s: a run picked up within seconds was woken.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../test/support/databases.ts';
import { openTemplateStore } from '../../test/support/store-template.ts';
import type { RunExecutor } from '../modules/runs/runs.executor.ts';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { createJobs, type Jobs, jobSender } from './boss.ts';
import { createRunQueue, registerRunWorker } from './run-queue.ts';

const POLL_SECONDS = 30;
const silent = { error() {}, warn() {}, info() {} };

const pgReachable = await pgAvailable();
if (!pgReachable) reportSkipped('src/jobs/run-queue.test.ts "on PostgreSQL"', 'PostgreSQL', testPgUrl);

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startedJobs(store: Store): Promise<Jobs> {
  const jobs = createJobs({ store, logger: silent });
  await jobs.start();
  cleanups.push(() => jobs.stop());
  return jobs;
}

/** A worker whose executor notes when each run reached it. */
async function recordingWorker(jobs: Jobs): Promise<Map<string, number>> {
  const reached = new Map<string, number>();
  const executor: Pick<RunExecutor, 'execute' | 'beat' | 'sweep'> = {
    execute: async (runId) => {
      reached.set(runId, performance.now());
    },
    beat: async () => {},
    sweep: async () => [],
  };
  const worker = await registerRunWorker(jobs, executor as RunExecutor, silent, {
    pollingIntervalSeconds: POLL_SECONDS,
  });
  cleanups.push(async () => {
    worker.stopHeartbeat();
    await worker.stopTaking();
  });
  return reached;
}

/** How long a run sent through `sender` takes to reach the worker, in ms. */
async function pickUp(sender: Jobs, reached: Map<string, number>): Promise<number> {
  // Past the worker's first fetch, which it makes as it starts: the next one is a poll away.
  await sleep(1_000);
  const runId = randomUUID();
  const sent = performance.now();
  await createRunQueue(jobSender(sender)).enqueue(runId);
  for (const deadline = sent + POLL_SECONDS * 1_000; performance.now() < deadline; ) {
    const at = reached.get(runId);
    if (at !== undefined) return at - sent;
    await sleep(20);
  }
  throw new Error('the run never reached the worker');
}

describe('a queued run wakes its worker', () => {
  it('on the embedded store', async () => {
    const store = await openTemplateStore('blank');
    cleanups.push(() => store.close());
    const jobs = await startedJobs(store);
    const reached = await recordingWorker(jobs);
    expect(await pickUp(jobs, reached)).toBeLessThan(5_000);
  });

  it.skipIf(!pgReachable)('on PostgreSQL, sent by another process than the one that works it', async () => {
    const database = (await createTestPgDatabase()) as TestPgDatabase;
    cleanups.push(() => database.drop());
    const store = await openStore({ kind: 'postgres', url: database.url });
    cleanups.push(() => store.close());
    await migrateToLatest(store.db);
    const worker = await startedJobs(store);
    const reached = await recordingWorker(worker);
    // A second queue instance with its own pool and no worker: an API process with JOBS_IN_SERVER=false.
    const api = await startedJobs(store);
    expect(await pickUp(api, reached)).toBeLessThan(5_000);
  });
});
