// The API answers every error as `{detail}`: a sentence, or for validation errors (422) a list of
// `{loc, msg}`. The UI shows it as text near the action that failed.

interface ValidationItem {
  loc?: unknown[];
  msg?: string;
}

/** Readable text of an error body: the detail itself, or `field: message` lines for a 422. */
export function detailText(body: unknown, status?: number): string {
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return (detail as ValidationItem[])
      .map((item) => {
        const where = (item.loc ?? []).filter((part) => part !== 'body' && part !== 'query').join('.');
        return where ? `${where}: ${item.msg ?? 'invalid'}` : (item.msg ?? 'invalid');
      })
      .join('\n');
  }
  return status ? `Request failed (${status})` : 'Request failed';
}

const RUN_IN_DETAIL = /\bRun ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/i;

/** The run a refusal names ("Run <id> of this patch is running; …"), if it names one. */
export function runIdInDetail(detail: string): string | undefined {
  return RUN_IN_DETAIL.exec(detail)?.[1];
}
