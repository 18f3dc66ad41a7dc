// When the app asks the API again by itself. A refused login to a target database is never asked
// again (each try is a failed login on that server: enough of them lock the account or trip a
// fail2ban); an answer the caller got wrong (4xx) does not get better; anything else, once. The error
// then stays on the page, with a Retry button for the person to decide.

/** What the retry policy needs to know of a failure. */
export interface FailureFacts {
  status?: number;
  /** The target database's classified cause, from a 502's X-Target-Error-Cause header. */
  targetCause?: string;
}

export const NEVER_RETRIED_CAUSES = new Set(['authentication_failed']);

/** Whether a query that failed `failures` times so far is tried again by itself. */
export function retriesAgain(failures: number, error: FailureFacts): boolean {
  if (error.targetCause !== undefined && NEVER_RETRIED_CAUSES.has(error.targetCause)) return false;
  if (error.status !== undefined && error.status < 500) return false;
  return failures < 1;
}
