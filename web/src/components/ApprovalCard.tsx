// One approval as a person decides it: what is asked (the subject: title, kind, connections, the
// SQL or statements), who asks, where it stands ("1 of 2 approvals"), the decisions so far, and
// Approve / Reject only where the server would take them.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api/client.ts';
import type { Approval } from '../api/types.ts';
import { useMe } from '../auth/session.ts';
import { approvalChoices, approvalCount } from '../lib/approval.ts';
import { Status } from './Badge.tsx';
import { ErrorText } from './ErrorText.tsx';
import { SubjectDetails } from './SubjectDetails.tsx';

/** With `withSubject` false (a run's page, which shows the subject itself) it is headed "Approval". */
export function ApprovalCard({
  approval,
  withSubject = true,
}: {
  approval: Approval;
  withSubject?: boolean;
}) {
  const title = approval.subject?.title ?? approval.kind.replace(/_/g, ' ');
  return (
    <article className="card approval" data-testid="approval" aria-label={`Approval of ${title}`}>
      <div className="row">
        <h2 className="approval-heading">{withSubject ? title : 'Approval'}</h2>
        <Status value={approval.status} />
        <span className="muted" data-testid="approval-count">
          {approvalCount(approval)}
        </span>
      </div>
      {withSubject && approval.subject && (
        <SubjectDetails subject={approval.subject} projectId={approval.project_id} />
      )}
      <p className="muted">
        Requested by <Requester approval={approval} /> on {new Date(approval.created_at).toLocaleString()} ·
        expires {new Date(approval.expires_at).toLocaleString()}
      </p>
      {approval.decisions.length > 0 && (
        <ul className="compact">
          {approval.decisions.map((d) => (
            <li key={d.user_id} className="muted">
              {d.decision === 'approve' ? 'approved' : 'rejected'} on{' '}
              {new Date(d.decided_at).toLocaleString()}
              {d.comment ? `: “${d.comment}”` : ''}
            </li>
          ))}
        </ul>
      )}
      <ApprovalDecision approval={approval} />
    </article>
  );
}

function Requester({ approval }: { approval: Approval }) {
  const { requester } = approval;
  if (!requester) return <span>a removed account</span>;
  return (
    <span data-testid="approval-requester">
      <strong>{requester.name}</strong> ({requester.email})
    </span>
  );
}

/**
 * The decisions the reader may take, with a comment (in a card) or without (in a table's row);
 * nothing when they may take none.
 */
export function ApprovalDecision({ approval, compact = false }: { approval: Approval; compact?: boolean }) {
  const queryClient = useQueryClient();
  const me = useMe();
  const [comment, setComment] = useState('');
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') =>
      call(
        api.PATCH('/api/v1/approvals/{id}', {
          params: { path: { id: approval.id } },
          body: comment.trim() ? { decision, comment } : { decision },
        }),
      ),
    onSettled: () => {
      for (const key of ['approvals', 'approval', 'access-requests', 'projects', 'runs', 'run'])
        queryClient.invalidateQueries({ queryKey: [key] });
    },
  });
  const choices = approvalChoices(approval, me.data);
  const pending = approval.status === 'pending';
  if (!choices.approve && !choices.reject)
    return choices.own && pending && !compact ? (
      <p className="muted">You asked for this: someone else decides.</p>
    ) : null;
  return (
    <>
      {choices.own && !choices.approve && !compact && (
        <p className="muted">You asked for this: someone else approves it; rejecting it withdraws it.</p>
      )}
      <div className={compact ? 'actions' : 'inline-form'}>
        {!compact && (
          <label>
            Comment
            <input value={comment} onChange={(e) => setComment(e.target.value)} />
          </label>
        )}
        {choices.approve && (
          <button type="button" onClick={() => decide.mutate('approve')} disabled={decide.isPending}>
            Approve
          </button>
        )}
        <button
          type="button"
          className="danger secondary"
          onClick={() => decide.mutate('reject')}
          disabled={decide.isPending}
        >
          Reject
        </button>
      </div>
      <ErrorText error={decide.error} />
    </>
  );
}
