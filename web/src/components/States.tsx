import type { ReactNode } from 'react';
import { ErrorText } from './ErrorText.tsx';

/**
 * Loading, error and empty states of a query, so every list says what is going on. An error stays
 * on the page (the app asks again by itself at most once, never after a refused login) with a Retry
 * button when the caller gives one.
 */
export function QueryState({
  isLoading,
  error,
  isEmpty,
  empty,
  onRetry,
  retrying = false,
  children,
}: {
  isLoading: boolean;
  error: unknown;
  isEmpty?: boolean;
  empty?: string;
  /** Asks again: the query's refetch. */
  onRetry?: () => void;
  retrying?: boolean;
  children?: ReactNode;
}) {
  if (isLoading)
    return (
      <p className="muted" aria-busy="true">
        Loading…
      </p>
    );
  if (error)
    return (
      <div className="failed">
        <ErrorText error={error} />
        {onRetry && (
          <button type="button" className="secondary" onClick={onRetry} disabled={retrying}>
            {retrying ? 'Retrying…' : 'Retry'}
          </button>
        )}
      </div>
    );
  if (isEmpty) return <p className="muted empty">{empty ?? 'Nothing here yet.'}</p>;
  return <>{children}</>;
}
