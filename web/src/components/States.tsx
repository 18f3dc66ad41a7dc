import type { ReactNode } from 'react';
import { ErrorText } from './ErrorText.tsx';

/** Loading, error and empty states of a query, so every list says what is going on. */
export function QueryState({
  isLoading,
  error,
  isEmpty,
  empty,
  children,
}: {
  isLoading: boolean;
  error: unknown;
  isEmpty?: boolean;
  empty?: string;
  children?: ReactNode;
}) {
  if (isLoading)
    return (
      <p className="muted" aria-busy="true">
        Loading…
      </p>
    );
  if (error) return <ErrorText error={error} />;
  if (isEmpty) return <p className="muted empty">{empty ?? 'Nothing here yet.'}</p>;
  return <>{children}</>;
}
