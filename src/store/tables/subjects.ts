// What an approval or a run is about, written when it is asked for: a person deciding or watching it
// reads the resource, its connections and a summary of its content without another request. Frozen
// with the request on purpose: the content an approval is bound to cannot change under it (an edit
// voids the approval), and a connection renamed later does not rewrite what was asked.
import type { Environment, SubjectKind } from '../../core/vocabulary.ts';

export interface SubjectConnection {
  id: string;
  name: string;
  environment: Environment;
  protected: boolean;
}

export interface Subject {
  kind: SubjectKind;
  id: string;
  title: string;
  /** The connection written to (or the access request's connection); null for project-wide access. */
  connection: SubjectConnection | null;
  /** The connection rows or schema are read from, when it is another one (bridge, migration). */
  source_connection?: SubjectConnection;
  /** At most 500 characters: the SQL, the statements, the tables, the row counts. */
  summary: string;
}
