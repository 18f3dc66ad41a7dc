// The tracing bootstrap, loaded before the service's own code: `node --import
// ./src/observability/tracing.ts src/main.ts …` (the npm scripts and the image do). The
// instrumentations patch pg, mysql2, ioredis, http and Fastify as they load, so they must be in
// place before any of them is imported: hence a separate entry, not an import of main.ts.
// Without OTEL_EXPORTER_OTLP_ENDPOINT (or with OTEL_SDK_DISABLED=true) it does nothing at all: no
// SDK is loaded, no hook is registered, nothing is sent, and the run spans of the executor are the
// API's no-ops.
import { register } from 'node:module';
import { ConfigError, loadTracingConfig } from '../config.ts';

let tracing: ReturnType<typeof loadTracingConfig> | undefined;
try {
  tracing = loadTracingConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Invalid configuration: ${error.message}`);
  process.exit(1);
}
if (tracing.endpoint) {
  // import-in-the-middle: lets the instrumentations see the ES modules imported after this point.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { startTracing } = await import('./tracing-sdk.ts');
  startTracing(tracing);
}
