import type { SubjectConnection } from '../api/types.ts';

/** A connection as a decision needs it: its name, its environment, and whether it is protected. */
export function ConnectionLabel({ connection }: { connection: SubjectConnection }) {
  return (
    <span className="connection-label">
      <strong>{connection.name}</strong>{' '}
      <span className={`env env-${connection.environment}`}>{connection.environment}</span>
      {connection.protected && <span className="tag danger">protected</span>}
    </span>
  );
}
