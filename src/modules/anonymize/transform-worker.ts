// A worker thread of the transform pool (transform-pool.ts): compiles a run's plan with its key
// once (its first message, which may come after the worker has started), then transforms the batches it is sent (decode, every rule, encode) and sends them back.
// Pure CPU work: the run's own thread keeps the database streams moving meanwhile.
import { parentPort } from 'node:worker_threads';
import {
  compileTableTransforms,
  positionalBatchTransform,
  positionalFieldTransforms,
  type TextRow,
} from '../../engine/anonymize/row-transform.ts';
import type { RunPlan } from '../../engine/anonymize/run-plan.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import { type FieldTransform, transformBatch, transformFields } from '../../engine/rows/transform.ts';

export interface TransformRequest {
  id: number;
  table: string;
  columns: string[];
  data: Uint8Array;
  /** Fields appended to each row (an in-place run's stage): see transform-pool.ts `RowExtras`. */
  extras?: { keyAt: number[]; rankFrom: number | null };
}

export type TransformReply = { id: number; data: Uint8Array; rows: number } | { id: number; error: string };

/** The run's plan and key, the first message a worker gets (transform-pool.ts `load`). */
export interface PlanMessage {
  plan: RunPlan;
  key: Uint8Array;
}

let transforms: ReturnType<typeof compileTableTransforms> = new Map();
type Extras = NonNullable<TransformRequest['extras']>;
/** A table's transform of one batch: by field when no shuffle is involved (other fields stay bytes), else by whole rows. */
type Compiled = (data: Buffer, extras: Extras | undefined) => RowBatch;
const compiled = new Map<string, Compiled>();
const port = parentPort;

function byFields(fields: Map<number, FieldTransform>): Compiled {
  return (data, extras) =>
    transformFields(
      data,
      fields,
      extras &&
        ((raw, row) => {
          // The original key fields as they arrived: already in the neutral format.
          let out = '';
          for (const k of extras.keyAt) out += `\t${raw(k) ?? '\\N'}`;
          return extras.rankFrom === null ? out : `${out}\t${extras.rankFrom + row + 1}`;
        }),
    );
}

function byRows(rows: (rows: TextRow[]) => TextRow[]): Compiled {
  return (data, extras) =>
    transformBatch(
      data,
      extras
        ? (originals) =>
            rows(originals).map((row, i) => [
              ...row,
              ...extras.keyAt.map((k) => originals[i]?.[k] ?? null),
              ...(extras.rankFrom === null ? [] : [String(extras.rankFrom + i + 1)]),
            ])
        : rows,
    );
}

port?.on('message', (message: TransformRequest | PlanMessage) => {
  if ('plan' in message) {
    transforms = compileTableTransforms(message.plan, Buffer.from(message.key));
    compiled.clear();
    return;
  }
  const request = message;
  try {
    const name = `${request.table}\u0000${request.columns.join('\u0000')}`;
    let transform = compiled.get(name);
    if (!transform) {
      const table = transforms.get(request.table);
      if (!table) throw new Error(`no transform for ${request.table}`);
      const fields = positionalFieldTransforms(table, request.columns);
      transform = fields ? byFields(fields) : byRows(positionalBatchTransform(table, request.columns));
      compiled.set(name, transform);
    }
    const data = Buffer.from(request.data.buffer, request.data.byteOffset, request.data.byteLength);
    const done = transform(data, request.extras);
    const reply = { id: request.id, data: done.data, rows: done.rows } satisfies TransformReply;
    // A batch is handed over rather than copied unless it may live in Node's shared pool of small
    // buffers (only allocations under half of Buffer.poolSize do), which must stay here.
    const owned =
      done.data.byteLength >= Buffer.poolSize >>> 1 ||
      (done.data.byteOffset === 0 && done.data.byteLength === done.data.buffer.byteLength);
    port.postMessage(reply, owned ? [done.data.buffer as ArrayBuffer] : []);
  } catch (error) {
    port.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies TransformReply);
  }
});
