// Transforms run's batches on worker threads (transform-worker.ts), in order. The transformers are
// CPU-bound (a keyed HMAC or two per value) and were what limited an anonymised copy, while the
// database streams need little of the run's own thread: with the work spread over the cores, the
// copy goes at the pace of the slower of the streams and the transforms. Batches keep their order
// and boundaries (a shuffle permutes within a batch, so the output is the same as on one thread);
// at most two batches per worker are in flight, so memory stays bounded.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RunPlan } from '../../engine/anonymize/run-plan.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import type { PlanMessage, TransformReply, TransformRequest } from './transform-worker.ts';

/**
 * Fields appended to each transformed row: the original values of the fields at `keyAt`, then,
 * with `rank`, the row's rank in the stream (1, 2, …), for an in-place run's stage.
 */
export interface RowExtras {
  keyAt: number[];
  rank: boolean;
}

export interface TransformPool {
  /** The batches of `table` (streamed with `columns`) transformed, in order. */
  transform(
    table: string,
    columns: readonly string[],
    extras?: RowExtras,
  ): (batches: AsyncIterable<RowBatch>) => AsyncIterable<RowBatch>;
  close(): Promise<void>;
}

/**
 * A transform thread's young generation: it holds one or two batches' strings at a time, which die
 * young, so a small nursery costs little time, and each thread's memory stays a few tens of MB.
 */
const TRANSFORM_YOUNG_GENERATION_MB = 8;

/** One worker per core, at most four: beyond that the database servers on the machine starve. */
export function poolSize(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/** Worker threads started before the run's plan is known: each loads its modules meanwhile. */
export interface StartedPool {
  /** The pool for `plan` with `key` (compiled once in each worker, before the first batch). */
  load(plan: RunPlan, key: Buffer): TransformPool;
  close(): Promise<void>;
}

export function createTransformPool(plan: RunPlan, key: Buffer, size = poolSize()): TransformPool {
  return startTransformPool(size).load(plan, key);
}

/**
 * Starts the workers now; their plan comes with `load`. Starting a worker (loading and compiling
 * its modules) takes about a third of a second: a caller that starts them first overlaps that with
 * its own reading of the schemas.
 */
export function startTransformPool(size = poolSize()): StartedPool {
  const workers = Array.from(
    { length: size },
    () =>
      new Worker(new URL('./transform-worker.ts', import.meta.url), {
        resourceLimits: { maxYoungGenerationSizeMb: TRANSFORM_YOUNG_GENERATION_MB },
      }),
  );
  const close = async () => {
    await Promise.all(workers.map((worker) => worker.terminate()));
  };
  return { load: (plan, key) => loaded(workers, plan, key, close), close };
}

function loaded(workers: Worker[], plan: RunPlan, key: Buffer, close: () => Promise<void>): TransformPool {
  const size = workers.length;
  // Messages are handled in order: every batch sent after this one finds the plan compiled.
  for (const worker of workers) worker.postMessage({ plan, key: new Uint8Array(key) } satisfies PlanMessage);
  const pending = new Map<number, { resolve(batch: RowBatch): void; reject(error: Error): void }>();
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  for (const worker of workers) {
    worker.on('message', (reply: TransformReply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`anonymization transform failed: ${reply.error}`));
      else
        waiting.resolve({
          data: Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength),
          rows: reply.rows,
        });
    });
    worker.on('error', failAll);
  }
  let sequence = 0;
  const submit = (
    table: string,
    columns: string[],
    batch: RowBatch,
    extras: TransformRequest['extras'],
  ): Promise<RowBatch> => {
    if (failure) return Promise.reject(failure);
    const id = sequence++;
    const done = new Promise<RowBatch>((resolve, reject) => pending.set(id, { resolve, reject }));
    const request: TransformRequest = { id, table, columns, data: batch.data, ...(extras && { extras }) };
    // Handed over, not copied, when the batch is the whole of its memory (a batch is not read again
    // once submitted): each batch then crosses between threads only as its transformed self, once.
    const data = batch.data;
    const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    (workers[id % size] as Worker).postMessage(request, whole ? [data.buffer as ArrayBuffer] : []);
    return done;
  };

  return {
    transform(table, columns, extras) {
      const list = [...columns];
      // Nothing to append (a stage without key copies or rank): the worker then leaves rows unsplit.
      const appended = extras && (extras.keyAt.length > 0 || extras.rank) ? extras : undefined;
      return async function* (batches) {
        const inFlight: Promise<RowBatch>[] = [];
        let rows = 0;
        for await (const batch of batches) {
          const done = submit(
            table,
            list,
            batch,
            appended && { keyAt: appended.keyAt, rankFrom: appended.rank ? rows : null },
          );
          rows += batch.rows;
          // Awaited in order below; marked handled now so a failure does not surface twice.
          done.catch(() => {});
          inFlight.push(done);
          if (inFlight.length >= size * 2) yield await (inFlight.shift() as Promise<RowBatch>);
        }
        while (inFlight.length > 0) yield await (inFlight.shift() as Promise<RowBatch>);
      };
    },
    close,
  };
}
