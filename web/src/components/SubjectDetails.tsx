// What a run or an approval is about, below its title: the subject's kind, the connections it
// touches, its summary (the SQL, statements, tables, row counts or reason) and a link to its page.
import { Link } from 'react-router';
import type { Subject } from '../api/types.ts';
import { subjectKindLabel, subjectPath } from '../lib/subject.ts';
import { ConnectionLabel } from './ConnectionLabel.tsx';

export function SubjectDetails({ subject, projectId }: { subject: Subject; projectId: string }) {
  const kind = subjectKindLabel(subject.kind);
  return (
    <div className="subject" data-testid="subject">
      <dl className="facts">
        <dt>What</dt>
        <dd>
          <span className="tag subject-kind">{kind}</span>{' '}
          <Link to={subjectPath(projectId, subject)}>Open the {kind}</Link>
        </dd>
        {subject.source_connection && (
          <>
            <dt>From</dt>
            <dd>
              <ConnectionLabel connection={subject.source_connection} />
            </dd>
          </>
        )}
        <dt>{subject.source_connection ? 'To' : 'Connection'}</dt>
        <dd>
          {subject.connection ? (
            <ConnectionLabel connection={subject.connection} />
          ) : (
            <span className="muted">the whole project</span>
          )}
        </dd>
      </dl>
      {/* Focusable so that keyboard users can scroll long SQL. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre className="summary" tabIndex={0} data-testid="subject-summary">
        {subject.summary}
      </pre>
    </div>
  );
}
