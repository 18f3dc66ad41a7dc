// A worker thread of the transform pool (transform-pool.ts): compiles a run's plan with its key
// once, then transforms the batches it is sent (decode, every rule, encode) and sends them back.
// Pure CPU work: the run's own thread keeps the database streams moving meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import {
  compileTableTransforms,
  positionalBatchTransform,
  type TextRow,
} from '../../engine/anonymize/row-transform.ts';
import type { RunPlan } from '../../engine/anonymize/run-plan.ts';
import { transformBatch } from '../../engine/rows/transform.ts';

export interface TransformRequest {
  id: number;
  table: string;
  columns: string[];
  data: Uint8Array;
  /** Fields appended to each row (an in-place run's stage): see transform-pool.ts `RowExtras`. */
  extras?: { keyAt: number[]; rankFrom: number | null };
}

export type TransformReply = { id: number; data: Uint8Array; rows: number } | { id: number; error: string };

const { plan, key } = workerData as { plan: RunPlan; key: Uint8Array };
const transforms = compileTableTransforms(plan, Buffer.from(key));
const compiled = new Map<string, (rows: TextRow[]) => TextRow[]>();
const port = parentPort;

port?.on('message', (request: TransformRequest) => {
  try {
    const name = `${request.table}\u0000${request.columns.join('\u0000')}`;
    let transform = compiled.get(name);
    if (!transform) {
      const table = transforms.get(request.table);
      if (!table) throw new Error(`no transform for ${request.table}`);
      transform = positionalBatchTransform(table, request.columns);
      compiled.set(name, transform);
    }
    const data = Buffer.from(request.data.buffer, request.data.byteOffset, request.data.byteLength);
    const { extras } = request;
    const rows = transform;
    const done = transformBatch(
      data,
      extras
        ? (originals) =>
            rows(originals).map((row, i) => [
              ...row,
              ...extras.keyAt.map((k) => originals[i]?.[k] ?? null),
              ...(extras.rankFrom === null ? [] : [String(extras.rankFrom + i + 1)]),
            ])
        : transform,
    );
    port.postMessage({ id: request.id, data: done.data, rows: done.rows } satisfies TransformReply);
  } catch (error) {
    port.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies TransformReply);
  }
});
