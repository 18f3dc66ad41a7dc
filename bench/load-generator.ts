// The load generator, run as a child process of the benches (bench/run.ts, bench/load.ts): it
// receives one or more autocannon option sets over IPC, runs them side by side with autocannon's
// programmatic API (each its own warm-up, then its measured run) and sends the results back, in the
// same order. Several sets at once are how one run mixes routes and still reports each on its own.
import autocannon, { type Options, type Result } from 'autocannon';

export type LoadRequest = Options[];
export type LoadReply = { ok: true; results: Result[] } | { ok: false; error: string };

function reply(message: LoadReply): void {
  process.send?.(message, () => process.disconnect());
}

process.once('message', (options: LoadRequest) => {
  Promise.all(options.map((one) => autocannon(one))).then(
    (results) => reply({ ok: true, results }),
    (error: unknown) => reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
