// The OpenTelemetry SDK as dbops runs it: traces only, exported over OTLP/HTTP to the standard
// OTEL_EXPORTER_OTLP_* settings (protobuf by default, JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json),
// with the maintained instrumentations of what the service talks through. Loaded by ./tracing.ts only
// when an endpoint is configured.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingConfig } from '../config.ts';
import { logMixin } from './log-context.ts';
import { scrubStatement } from './statement-scrub.ts';
import { targetInContext } from './target-context.ts';
import { tracingStarted } from './trace-export.ts';

/** Requests a trace has nothing to say about: probes every few seconds, and Prometheus's scrapes. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The attribute the pg and mysql2 instrumentations put a statement's text in (stable semconv). */
const QUERY_TEXT = 'db.query.text';

/**
 * A statement made while a run works names the run: its span carries the connections it touches
 * (runs.executor.ts), and several runs on one server are told apart.
 */
function nameRun(span: Span): void {
  const runId = logMixin().run_id;
  if (typeof runId === 'string') span.setAttribute('dbops.run.id', runId);
}

/** A statement made on a target connection names it (the store's statements have no connection). */
function nameConnection(span: Span, reached?: { database?: string; port?: number }): void {
  const target = targetInContext();
  if (!target) return;
  if (reached && (reached.database !== target.database || reached.port !== target.port)) return;
  span.setAttribute('dbops.connection.id', target.id);
}

export function startTracing(config: TracingConfig): void {
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    // Traces only: metrics are Prometheus's (METRICS_PORT), logs are pino's lines.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        // Outgoing calls go to webhook receivers, audit sinks and identity providers: a trace id in
        // their headers would tell a third party about this service's traces.
        disableOutgoingRequestInstrumentation: true,
      }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      // Statements inside a request or a run only: pg-boss polls the store every second or two, and
      // a root span per poll would bury what matters.
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        requestHook: (span: Span, info) => {
          span.setAttribute(QUERY_TEXT, scrubStatement(info.query.text, 'postgresql'));
          nameRun(span);
          // The store is PostgreSQL too: only a statement on the target's database and port is its.
          nameConnection(span, info.connection);
        },
      }),
      new MySQL2Instrumentation({
        maskStatement: true,
        maskStatementHook: (text) => scrubStatement(text, 'mysql'),
        responseHook: (span: Span) => {
          nameRun(span);
          // The store is never MySQL: every mysql2 statement is a target's.
          nameConnection(span);
        },
      }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  tracingStarted(config.endpoint ?? '', () => sdk.shutdown());
}
