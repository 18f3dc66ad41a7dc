// Drift per connection: the baseline and latest report, the diff by table with severity colours,
// a check on demand, acknowledge with a comment (the badge in the sidebar counts open reports), and
// the connection's snapshots.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Connection, DriftReport } from '../api/types.ts';
import { Severity, Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { useConnections } from '../shell/connections.ts';
import { SnapshotsList } from './SnapshotsList.tsx';

export function DriftPage() {
  const { pid = '' } = useParams();
  const connections = useConnections(pid);
  return (
    <>
      <h1>Drift</h1>
      <QueryState
        isLoading={connections.isLoading}
        error={connections.error}
        isEmpty={connections.data?.items.length === 0}
        empty="No connections to watch yet."
        onRetry={() => void connections.refetch()}
        retrying={connections.isFetching}
      >
        {connections.data?.items.map((c) => (
          <ConnectionDrift key={c.id} connection={c} />
        ))}
      </QueryState>
    </>
  );
}

function ConnectionDrift({ connection }: { connection: Connection }) {
  const queryClient = useQueryClient();
  const overview = useQuery({
    queryKey: ['drift', connection.id],
    queryFn: () =>
      call(api.GET('/api/v1/connections/{cid}/drift', { params: { path: { cid: connection.id } } })),
  });
  const refresh = () => {
    queryClient.invalidateQueries({ queryKey: ['drift', connection.id] });
    queryClient.invalidateQueries({ queryKey: ['projects'] });
  };
  const check = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/connections/{cid}/drift/check', { params: { path: { cid: connection.id } } })),
    onSuccess: () => {
      refresh();
      // A check takes a snapshot, so an open list shows it.
      queryClient.invalidateQueries({ queryKey: ['snapshots', connection.id] });
    },
  });
  const report = overview.data?.latest_report;
  const [showSnapshots, setShowSnapshots] = useState(false);
  return (
    <section className="card" aria-label={`Drift of ${connection.name}`}>
      <div className="row">
        <h2>{connection.name}</h2>
        {overview.data && (
          <span className="muted">
            baseline {new Date(overview.data.baseline.taken_at).toLocaleString()} ·{' '}
            {overview.data.open_reports} open
          </span>
        )}
        <span className="spacer" />
        <button type="button" className="secondary" onClick={() => check.mutate()} disabled={check.isPending}>
          {check.isPending ? 'Checking…' : 'Check now'}
        </button>
        <button
          type="button"
          className="secondary"
          aria-expanded={showSnapshots}
          onClick={() => setShowSnapshots(!showSnapshots)}
        >
          Snapshots
        </button>
      </div>
      {showSnapshots && <SnapshotsList connectionId={connection.id} connectionName={connection.name} />}
      {check.data && !check.data.drift && (
        <p className="ok" role="status">
          No drift from the baseline.
        </p>
      )}
      <ErrorText error={check.error} />
      <QueryState
        isLoading={overview.isLoading}
        error={overview.error}
        onRetry={() => void overview.refetch()}
        retrying={overview.isFetching}
      >
        {report ? (
          <Report report={report} onAcknowledged={refresh} />
        ) : (
          <p className="muted empty">No drift reported.</p>
        )}
      </QueryState>
    </section>
  );
}

function Report({ report, onAcknowledged }: { report: DriftReport; onAcknowledged: () => void }) {
  const [comment, setComment] = useState('');
  const acknowledge = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/drifts/{id}/acknowledge', {
          params: { path: { id: report.id } },
          body: comment.trim() ? { comment } : {},
        }),
      ),
    onSuccess: onAcknowledged,
  });
  const { diff, summary } = report;
  return (
    <div className="report" data-testid="drift-report">
      <p>
        <Status value={report.status} /> <Severity value={report.severity} /> {summary.critical} critical ·{' '}
        {summary.moderate} moderate · {summary.minor} minor · found{' '}
        {new Date(report.created_at).toLocaleString()}
      </p>
      <ul className="drift-tables">
        {diff.tables_added.map((t) => (
          <li key={`+${t.table}`} className={`sev-${t.severity}`}>
            <Severity value={t.severity} /> table {t.table} added
          </li>
        ))}
        {diff.tables_removed.map((t) => (
          <li key={`-${t.table}`} className={`sev-${t.severity}`}>
            <Severity value={t.severity} /> table {t.table} removed
          </li>
        ))}
        {diff.tables_modified.map((t) => (
          <li key={`~${t.table}`} className={`sev-${t.severity}`}>
            <Severity value={t.severity} /> table <strong>{t.table}</strong>
            <ul className="compact">
              {t.changes.map((change) => (
                <li key={`${change.kind}-${change.object}`}>
                  <Severity value={change.severity} /> {change.kind.replace(/_/g, ' ')} {change.object}
                  {change.from !== null || change.to !== null
                    ? `: ${change.from ?? '—'} → ${change.to ?? '—'}`
                    : ''}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {report.status === 'pending' ? (
        <div className="inline-form">
          <label>
            Comment
            <input value={comment} onChange={(e) => setComment(e.target.value)} />
          </label>
          <button type="button" onClick={() => acknowledge.mutate()} disabled={acknowledge.isPending}>
            Acknowledge
          </button>
        </div>
      ) : (
        <p className="muted">Acknowledged {report.comment ? `: “${report.comment}”` : ''}</p>
      )}
      <ErrorText error={acknowledge.error} />
    </div>
  );
}
