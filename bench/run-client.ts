// Runs a command-line client (psql, mariadb, pg_dump, …) to its end, for the benches that put the
// service next to the engine's own tools.
import { spawn } from 'node:child_process';

/** The client's output, and its wall clock from spawn to exit; rejects with its first stderr lines. */
export function runClient(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const wallMs = performance.now() - started;
      if (code !== 0) {
        const message = Buffer.concat(err).toString('utf8').trim().split('\n').slice(0, 3).join(' ');
        reject(new Error(`${command} ended with ${code ?? signal}: ${message}`));
        return;
      }
      resolve({ stdout: Buffer.concat(out).toString('utf8'), wallMs });
    });
  });
}
