// What each kind of sink receives for a batch of entries (docs/contract.md §11.2), as the receivers expect it:
// http: a JSON array, signed like a webhook with the sink's own secret; Splunk HEC: one
// `{"event": …, "time": …}` object per line with `Authorization: Splunk <token>`; Datadog logs
// intake (v2): a JSON array of logs with `DD-API-KEY`. Entries are written as `GET /audit` answers.
import type { AuditSinkType } from '../../core/vocabulary.ts';
import { signedHeaders } from '../webhooks/webhook-signing.ts';

export type ExportedEntry = Record<string, unknown> & { seq: number; created_at: string; action: string };

export interface SinkCredentials {
  token: string | null;
  secret: string | null;
  headers: Record<string, string>;
}

export function formatBatch(
  type: AuditSinkType,
  sinkId: string,
  entries: ExportedEntry[],
  credentials: SinkCredentials,
  now: Date,
): { headers: Record<string, string>; body: string } {
  const extra = credentials.headers;
  if (type === 'splunk_hec') {
    const body = entries
      .map((entry) =>
        JSON.stringify({
          time: Date.parse(entry.created_at) / 1000,
          source: 'dbops',
          sourcetype: 'dbops:audit',
          event: entry,
        }),
      )
      .join('\n');
    return { headers: { ...extra, authorization: `Splunk ${credentials.token ?? ''}` }, body };
  }
  if (type === 'datadog') {
    const body = JSON.stringify(
      entries.map((entry) => ({
        ddsource: 'dbops',
        service: 'dbops',
        ddtags: `audit_action:${entry.action}`,
        message: `${entry.action} (${entry.outcome})`,
        date: entry.created_at,
        audit: entry,
      })),
    );
    return { headers: { ...extra, 'dd-api-key': credentials.token ?? '' }, body };
  }
  const body = JSON.stringify(entries);
  const first = entries[0]?.seq ?? 0;
  const last = entries.at(-1)?.seq ?? 0;
  // The id names the batch: a retry of the same range carries the same id.
  const signed = signedHeaders(
    credentials.secret ? [credentials.secret] : [],
    `audit_${sinkId}_${first}_${last}`,
    Math.floor(now.getTime() / 1000),
    body,
  );
  return {
    headers: {
      ...extra,
      ...signed,
      ...(credentials.token && { authorization: `Bearer ${credentials.token}` }),
    },
    body,
  };
}
