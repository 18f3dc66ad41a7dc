// Streams each sink's organization's audit chain to it, in seq order and at least once: a batch is
// sent, and only a 2xx answer moves the sink's cursor (`last_exported_seq`) past it. A failure keeps
// the cursor, records the error and waits a back-off (5 s doubling to 1 h) before the same batch is
// sent again; nothing is ever skipped. One exporter holds a sink at a time (a lease), so batches of
// one sink never overtake each other, across processes too. The cursor is in the store, so a
// restart resumes where the last accepted batch ended.

import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import type { AuditSink } from '../../store/tables.ts';
import { chainPage } from '../audit/audit.repo.ts';
import { toAuditResponse } from '../audit/audit.schemas.ts';
import type { TargetGuard } from '../connections/target-guard.ts';
import type { Logger } from '../module.ts';
import { postPinned } from '../webhooks/outbound-http.ts';
import { type ExportedEntry, formatBatch, type SinkCredentials } from './sink-formats.ts';
import { claimSink, dueSinks, updateSink } from './sinks.repo.ts';

export const SINK_PURPOSE = {
  token: 'audit-sink-token',
  headers: 'audit-sink-headers',
  secret: 'audit-sink-secret',
};

const BATCH = 500;
/** Batches one sink may send in one pass before the others get their turn. */
const BATCHES_PER_PASS = 20;
const BACKOFF_BASE_SECONDS = 5;
const BACKOFF_MAX_SECONDS = 3600;

export function backoffSeconds(failures: number): number {
  return Math.min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.max(0, failures - 1));
}

export type SendOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export function createAuditExporter(deps: {
  db: Db;
  box: SecretBox;
  guard: TargetGuard;
  timeoutMs: number;
  logger: Logger;
  now: () => Date;
}) {
  const { db, box, guard, timeoutMs, logger, now } = deps;

  function credentials(sink: AuditSink): SinkCredentials {
    return {
      token: sink.token_sealed ? box.open(sink.token_sealed, SINK_PURPOSE.token) : null,
      secret: sink.secret_sealed ? box.open(sink.secret_sealed, SINK_PURPOSE.secret) : null,
      headers: sink.headers_sealed ? JSON.parse(box.open(sink.headers_sealed, SINK_PURPOSE.headers)) : {},
    };
  }

  /** Sends one batch to the sink's receiver; only a 2xx is accepted. */
  async function send(sink: AuditSink, entries: ExportedEntry[]): Promise<SendOutcome> {
    const url = new URL(sink.url);
    const { headers, body } = formatBatch(sink.type, sink.id, entries, credentials(sink), now());
    let address: string;
    try {
      [address] = await guard.assertAllowed(url.hostname.replace(/^\[|\]$/g, ''));
    } catch (error) {
      return { ok: false, status: null, error: (error as Error).message };
    }
    const outcome = await postPinned({ url, address, headers, body, timeoutMs });
    if (!outcome.ok) return { ok: false, status: null, error: outcome.error };
    if (outcome.status >= 200 && outcome.status < 300) return { ok: true, status: outcome.status };
    const redirect = outcome.status >= 300 && outcome.status < 400 ? ' (redirects are not followed)' : '';
    const excerpt = outcome.excerpt.slice(0, 200);
    return {
      ok: false,
      status: outcome.status,
      error: `The receiver answered ${outcome.status}${redirect}${excerpt ? `: ${excerpt}` : ''}`,
    };
  }

  /** Exports what the sink has not accepted yet, until caught up, a failure, or its share of the pass. */
  async function exportSink(id: string): Promise<{ sent: number; failed: boolean }> {
    const started = now();
    const sink = await claimSink(
      db,
      id,
      started,
      new Date(started.getTime() + BATCHES_PER_PASS * (timeoutMs + 5_000)),
    );
    if (!sink) return { sent: 0, failed: false };
    let cursor = Number(sink.last_exported_seq);
    let sent = 0;
    try {
      for (let batch = 0; batch < BATCHES_PER_PASS; batch++) {
        const rows = await chainPage(db, sink.org_id, cursor, BATCH);
        if (rows.length === 0) break;
        const entries = rows.map(toAuditResponse) as ExportedEntry[];
        const outcome = await send(sink, entries);
        if (!outcome.ok) {
          const failures = sink.failures + 1;
          await updateSink(db, id, {
            failures,
            last_error: outcome.error,
            last_error_at: now(),
            next_attempt_at: new Date(now().getTime() + backoffSeconds(failures) * 1000),
          });
          logger.warn(
            { sink_id: id, failures, error: outcome.error },
            'audit export batch refused; retried later',
          );
          return { sent, failed: true };
        }
        cursor = entries.at(-1)!.seq;
        sent += entries.length;
        await updateSink(db, id, {
          last_exported_seq: cursor,
          last_exported_at: now(),
          failures: 0,
          next_attempt_at: null,
        });
        sink.failures = 0;
        if (rows.length < BATCH) break;
      }
      return { sent, failed: false };
    } finally {
      await updateSink(db, id, { locked_until: null });
    }
  }

  return {
    exportSink,
    send,

    /** One pass over every due sink (the schedule's work). */
    async pass(): Promise<{ sinks: number; sent: number; failed: number }> {
      let sent = 0;
      let failed = 0;
      const sinks = await dueSinks(db, now());
      for (const { id } of sinks) {
        const result = await exportSink(id);
        sent += result.sent;
        if (result.failed) failed++;
      }
      return { sinks: sinks.length, sent, failed };
    },
  };
}

export type AuditExporter = ReturnType<typeof createAuditExporter>;
