// The `subject` of runs and approvals (docs/contract.md §10): what an operation is about, as a person reads it.
import { Type } from 'typebox';
import { ENVIRONMENTS, SUBJECT_KINDS } from '../../core/vocabulary.ts';
import { Nullable, StringEnum, Uuid } from '../../http/schemas.ts';
import type { Subject } from '../../store/tables.ts';

const SubjectConnectionSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    environment: StringEnum(ENVIRONMENTS),
    protected: Type.Boolean(),
  },
  { title: 'SubjectConnection' },
);

export const SubjectSchema = Type.Object(
  {
    kind: StringEnum(SUBJECT_KINDS, {
      description:
        "The resource, not the run kind: a patch's execute and rollback are both about the `patch`",
    }),
    id: Type.String({
      format: 'uuid',
      description:
        "The resource's id (for a bridge, the id of the copy request: the same request, the same id)",
    }),
    title: Type.String({
      description: 'The resource\'s own title, or one made for it ("copy of 3 tables shop-prod → shop-dev")',
    }),
    connection: Nullable({
      ...SubjectConnectionSchema,
      description: "The connection written to (an access request's connection; null for project-wide access)",
    }),
    source_connection: Type.Optional({
      ...SubjectConnectionSchema,
      description: 'The connection rows or schema are read from, when another one (bridge, migration)',
    }),
    summary: Type.String({
      maxLength: 500,
      description:
        "At most 500 characters of the content: the patch's SQL, the migration's statements, the copy's tables, " +
        "the scenario's row counts, the access request's reason; the full content is one GET of the resource away",
    }),
  },
  {
    title: 'Subject',
    description: 'What the approval or run is about, as it was when it was asked for',
  },
);

export function toSubjectResponse(subject: Subject | null) {
  if (subject === null) return null;
  const { kind, id, title, connection, source_connection, summary } = subject;
  return { kind, id, title, connection, ...(source_connection && { source_connection }), summary };
}
