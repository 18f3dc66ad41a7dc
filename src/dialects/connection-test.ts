// `test` of every dialect: open a handle (which asks the version), close it, and say how it went.
// It never throws: a failure is classified by the dialect's own classifier, without the password.
import type { TargetConfig, TargetHandle, TestResult } from './dialect.ts';
import { TargetError } from './errors.ts';

export async function testByOpening(
  config: TargetConfig,
  open: (config: TargetConfig) => Promise<TargetHandle>,
  classify: (error: unknown) => TargetError,
): Promise<TestResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const handle = await open(config);
    await handle.close();
    return { ok: true, latency_ms: elapsed(), server_version: handle.serverVersion, error: null };
  } catch (error) {
    const failure = error instanceof TargetError ? error : classify(error);
    return { ok: false, latency_ms: elapsed(), server_version: null, error: failure.toJSON() };
  }
}
