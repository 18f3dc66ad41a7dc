// The writers' row count and upstream error (rows.ts `counted`), as the stream pipeline drives it:
// the error of the feeding side is kept for the writer to rethrow as it is; the writer's own error,
// which Readable.from's destroy throws into the generator, is not taken for the source's (it was,
// and a connection lost mid-COPY then failed a seed run as an unclassified internal error).
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { counted } from './rows.ts';

async function* batches(n: number, failAt?: number) {
  for (let i = 0; i < n; i++) {
    if (i === failAt) throw new Error('the source failed');
    yield { data: Buffer.from(`${i}\n`), rows: 1 };
  }
}

/** A writer that takes `accept` chunks, then fails as a lost connection does. */
function sink(accept: number) {
  let taken = 0;
  return new Writable({
    highWaterMark: 1,
    write(_chunk, _encoding, done) {
      taken += 1;
      if (taken > accept) done(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
      else setImmediate(done);
    },
  });
}

describe('counted', () => {
  it('counts every row of a load that completes', async () => {
    const tally: { rows: number; upstream?: unknown } = { rows: 0 };
    await pipeline(Readable.from(counted(batches(50), tally), { highWaterMark: 1 }), sink(1_000));
    expect(tally).toEqual({ rows: 50 });
  });

  it('keeps the error of the source', async () => {
    const tally: { rows: number; upstream?: unknown } = { rows: 0 };
    await expect(
      pipeline(Readable.from(counted(batches(50, 10), tally), { highWaterMark: 1 }), sink(1_000)),
    ).rejects.toThrow('the source failed');
    expect((tally.upstream as Error).message).toBe('the source failed');
  });

  it("does not take the writer's own failure for the source's", async () => {
    const tally: { rows: number; upstream?: unknown } = { rows: 0 };
    let closed = false;
    async function* watched() {
      try {
        yield* batches(1_000);
      } finally {
        closed = true;
      }
    }
    await expect(
      pipeline(Readable.from(counted(watched(), tally), { highWaterMark: 1 }), sink(5)),
    ).rejects.toThrow('ECONNRESET');
    expect(tally.upstream).toBeUndefined();
    // The source was closed rather than left suspended.
    expect(closed).toBe(true);
  });
});
