// Runs autocannon in a child process (bench/load-generator.ts) rather than in the bench's own: there
// it would share the event loop with whatever the bench serves or waits on, and each would slow
// the other and skew the latencies. Several option sets run side by side in that one child.
import { fork } from 'node:child_process';
import type { Options, Result } from 'autocannon';
import type { LoadReply, LoadRequest } from './load-generator.ts';

/** The results of `options`, in their order, once every run has ended. */
export function generateLoad(options: Options[]): Promise<Result[]> {
  const request: LoadRequest = options;
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./load-generator.ts', import.meta.url), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let settled = false;
    child.once('message', (message: LoadReply) => {
      settled = true;
      if (message.ok) resolve(message.results);
      else reject(new Error(`autocannon: ${message.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`the load generator ended (code ${code}) without a result`));
    });
    child.send(request);
  });
}
