// What the rest of the process knows of tracing: whether it is on (./tracing.ts started the SDK)
// and how to send the spans still buffered before a graceful stop calls process.exit.
let exporting: { endpoint: string; flush: () => Promise<void> } | undefined;

export function tracingStarted(endpoint: string, flush: () => Promise<void>): void {
  exporting = { endpoint, flush };
}

/** Where spans go, without credentials; undefined when tracing is off. */
export function tracingEndpoint(): string | undefined {
  if (!exporting) return undefined;
  const url = new URL(exporting.endpoint);
  return url.origin + url.pathname;
}

/** Sends what is buffered, bounded: a collector that does not answer never holds up the exit. */
export async function flushTraces(timeoutMs = 3_000): Promise<void> {
  if (!exporting) return;
  await Promise.race([
    exporting.flush().catch(() => {}),
    new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
  ]);
}
