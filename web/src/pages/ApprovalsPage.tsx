import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Approval } from '../api/types.ts';
import { Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';

type Filter = 'pending' | 'approved' | 'rejected';

export function ApprovalsPage() {
  const { pid = '' } = useParams();
  const [status, setStatus] = useState<Filter>('pending');
  const approvals = useQuery({
    queryKey: ['approvals', pid, status],
    queryFn: () => call(api.GET('/api/v1/approvals', { params: { query: { project_id: pid, status } } })),
    refetchInterval: 10_000,
  });
  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
        <label>
          Show
          <select value={status} onChange={(e) => setStatus(e.target.value as Filter)}>
            <option value="pending">pending</option>
            <option value="approved">approved</option>
            <option value="rejected">rejected</option>
          </select>
        </label>
      </div>
      <QueryState
        isLoading={approvals.isLoading}
        error={approvals.error}
        isEmpty={approvals.data?.items.length === 0}
        empty={`No ${status} approvals.`}
      >
        <ul className="list">
          {approvals.data?.items.map((approval) => (
            <ApprovalItem key={approval.id} approval={approval} />
          ))}
        </ul>
      </QueryState>
    </>
  );
}

function ApprovalItem({ approval }: { approval: Approval }) {
  const queryClient = useQueryClient();
  const [comment, setComment] = useState('');
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') =>
      call(
        api.PATCH('/api/v1/approvals/{id}', {
          params: { path: { id: approval.id } },
          body: comment.trim() ? { decision, comment } : { decision },
        }),
      ),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['approvals'] });
      queryClient.invalidateQueries({ queryKey: ['projects'] });
      queryClient.invalidateQueries({ queryKey: ['runs'] });
    },
  });
  const approvals = approval.decisions.filter((d) => d.decision === 'approve').length;
  return (
    <li className="card" data-testid="approval">
      <div className="row">
        <strong>{approval.kind.replace(/_/g, ' ')}</strong>
        <Status value={approval.status} />
        <span className="muted">
          {approvals} of {approval.required_approvals} approvals · requested{' '}
          {new Date(approval.created_at).toLocaleString()} · expires{' '}
          {new Date(approval.expires_at).toLocaleString()}
        </span>
      </div>
      {approval.decisions.map((d) => (
        <p key={d.user_id} className="muted">
          {d.decision} {d.comment ? `: “${d.comment}”` : ''}
        </p>
      ))}
      {approval.status === 'pending' && (
        <div className="inline-form">
          <label>
            Comment
            <input value={comment} onChange={(e) => setComment(e.target.value)} />
          </label>
          <button type="button" onClick={() => decide.mutate('approve')} disabled={decide.isPending}>
            Approve
          </button>
          <button
            type="button"
            className="danger secondary"
            onClick={() => decide.mutate('reject')}
            disabled={decide.isPending}
          >
            Reject
          </button>
        </div>
      )}
      <ErrorText error={decide.error} />
    </li>
  );
}
