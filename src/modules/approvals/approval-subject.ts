// The pieces of a subject (src/store/tables/subjects.ts) every module writes the same way: a
// connection as an approver needs to see it, and a summary cut to what fits an inbox line.
import type { Connection, SubjectConnection } from '../../store/tables.ts';

/** The longest summary kept: the full content is one GET of the subject away. */
export const SUMMARY_MAX = 500;

export function subjectConnection(
  connection: Pick<Connection, 'id' | 'name' | 'environment' | 'protected'>,
): SubjectConnection {
  return {
    id: connection.id,
    name: connection.name,
    environment: connection.environment,
    protected: connection.protected,
  };
}

/** `text` cut to SUMMARY_MAX characters (code points), an ellipsis marking a cut. */
export function summarize(text: string): string {
  const chars = Array.from(text.trim());
  return chars.length <= SUMMARY_MAX ? chars.join('') : `${chars.slice(0, SUMMARY_MAX - 1).join('')}…`;
}
