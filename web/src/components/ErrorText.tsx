import { Link } from 'react-router';
import { ApiError } from '../api/client.ts';
import { runIdInDetail } from '../lib/errors.ts';

/**
 * An API error's `detail`, shown next to the action that failed and announced to screen readers. A
 * conflict (409) that names a run in flight links to that run, which is what to wait for or cancel.
 */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  const runId = error instanceof ApiError && error.status === 409 ? runIdInDetail(text) : undefined;
  if (runId)
    return (
      <p className="error conflict" role="alert" data-testid="run-conflict">
        {text} <Link to={`/runs/${runId}`}>Open that run</Link>
      </p>
    );
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}
