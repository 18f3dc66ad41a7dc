// The approvals inbox: each approval with what is to be decided (see ApprovalCard), by status.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ApprovalCard } from '../components/ApprovalCard.tsx';
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
        onRetry={() => void approvals.refetch()}
        retrying={approvals.isFetching}
        isEmpty={approvals.data?.items.length === 0}
        empty={`No ${status} approvals.`}
      >
        <ul className="list">
          {approvals.data?.items.map((approval) => (
            <li key={approval.id}>
              <ApprovalCard approval={approval} />
            </li>
          ))}
        </ul>
      </QueryState>
    </>
  );
}
