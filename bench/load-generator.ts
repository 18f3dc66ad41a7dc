// The load generator, run as a child process of bench/run.ts: it receives autocannon's options over
// IPC, runs autocannon's programmatic API (warm-up, then the measured run) and sends the result back.
import autocannon, { type Options, type Result } from 'autocannon';

export type LoadRequest = Options;
export type LoadReply = { ok: true; result: Result } | { ok: false; error: string };

function reply(message: LoadReply): void {
  process.send?.(message, () => process.disconnect());
}

process.once('message', (options: LoadRequest) => {
  autocannon(options).then(
    (result) => reply({ ok: true, result }),
    (error: unknown) => reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
