// Just-in-time access: request a role for a while (an approval decides it, here or in the inbox),
// see the requests with who asks, where, their approval and remaining time, revoke an active grant.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ApprovalDecision } from '../components/ApprovalCard.tsx';
import { Status } from '../components/Badge.tsx';
import { ConnectionLabel } from '../components/ConnectionLabel.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { ListTable } from '../components/ListTable.tsx';
import { approvalCount } from '../lib/approval.ts';
import { remainingText } from '../lib/time.ts';
import { useConnections } from '../shell/connections.ts';

type Role = 'admin' | 'developer' | 'viewer';

export function AccessRequestsPage() {
  const { pid = '' } = useParams();
  const queryClient = useQueryClient();
  const connections = useConnections(pid);
  const requests = useQuery({
    queryKey: ['access-requests', pid],
    queryFn: () => call(api.GET('/api/v1/projects/{pid}/access-requests', { params: { path: { pid } } })),
    refetchInterval: 30_000,
  });
  const [role, setRole] = useState<Role>('developer');
  const [minutes, setMinutes] = useState(60);
  const [reason, setReason] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const refresh = () => {
    queryClient.invalidateQueries({ queryKey: ['access-requests', pid] });
    queryClient.invalidateQueries({ queryKey: ['projects'] });
  };
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/projects/{pid}/access-requests', {
          params: { path: { pid } },
          body: {
            role,
            duration_minutes: minutes,
            reason,
            ...(connectionId && { connection_id: connectionId }),
          },
        }),
      ),
    onSuccess: () => {
      setReason('');
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) =>
      call(api.POST('/api/v1/access-requests/{id}/revoke', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <h1>Access requests</h1>
      <form className="card inline-form" onSubmit={submit} aria-label="Request access">
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="viewer">viewer</option>
            <option value="developer">developer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Only on connection
          <select value={connectionId} onChange={(e) => setConnectionId(e.target.value)}>
            <option value="">Whole project</option>
            {connections.data?.items.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Minutes
          <input
            type="number"
            min={1}
            required
            value={minutes}
            onChange={(e) => setMinutes(Number(e.target.value))}
          />
        </label>
        <label>
          Reason
          <input required value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending}>
          Request access
        </button>
        <ErrorText error={create.error} />
      </form>
      <ListTable
        query={requests}
        label="Access requests"
        empty="No access requests."
        columns={[
          'Role',
          'Where',
          'Reason',
          'Requested by',
          'Status',
          'Approval',
          'Remaining',
          <span key="actions" className="visually-hidden">
            Actions
          </span>,
        ]}
        row={(r) => (
          <tr key={r.id} data-testid="access-request">
            <td>{r.role}</td>
            <td>
              {r.approval.subject?.connection ? (
                <ConnectionLabel connection={r.approval.subject.connection} />
              ) : (
                <span className="muted">whole project</span>
              )}
            </td>
            <td>{r.reason}</td>
            <td>
              {r.approval.requester ? (
                <>
                  {r.approval.requester.name}{' '}
                  <span className="muted break">({r.approval.requester.email})</span>
                </>
              ) : (
                <span className="muted">a removed account</span>
              )}
            </td>
            <td>
              <Status value={r.status} />
            </td>
            <td>
              <Status value={r.approval.status} /> <span className="muted">{approvalCount(r.approval)}</span>
            </td>
            <td>{r.status === 'active' && r.expires_at ? remainingText(r.expires_at, new Date()) : '—'}</td>
            <td>
              {r.status === 'active' && (
                <button type="button" className="link danger" onClick={() => revoke.mutate(r.id)}>
                  Revoke
                </button>
              )}
              <ApprovalDecision approval={r.approval} compact />
            </td>
          </tr>
        )}
      />
      <ErrorText error={revoke.error} />
    </>
  );
}
