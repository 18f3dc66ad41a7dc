// A connection's schema snapshots, newest first: when each was taken, its hash (equal schemas hash
// the same, so a repeated hash means nothing changed between them) and which one is the baseline.
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client.ts';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { QueryState } from '../components/States.tsx';

/** The newest snapshots are the interesting ones; older pages are a click away in the API. */
const PAGE_SIZE = 20;

export function SnapshotsList({
  connectionId,
  connectionName,
}: {
  connectionId: string;
  connectionName: string;
}) {
  const snapshots = useQuery({
    queryKey: ['snapshots', connectionId],
    queryFn: () =>
      call(
        api.GET('/api/v1/connections/{cid}/snapshots', {
          params: { path: { cid: connectionId }, query: { page_size: PAGE_SIZE } },
        }),
      ),
  });
  const page = snapshots.data;
  return (
    <QueryState
      isLoading={snapshots.isLoading}
      error={snapshots.error}
      onRetry={() => void snapshots.refetch()}
      retrying={snapshots.isFetching}
      isEmpty={page?.items.length === 0}
      empty="No snapshots yet."
    >
      <ScrollTable label={`Snapshots of ${connectionName}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Taken</th>
              <th scope="col">Schema hash</th>
              <th scope="col">Baseline</th>
            </tr>
          </thead>
          <tbody>
            {page?.items.map((snapshot) => (
              <tr key={snapshot.id}>
                <td>{new Date(snapshot.taken_at).toLocaleString()}</td>
                <td>
                  <code title={snapshot.schema_hash}>{snapshot.schema_hash.slice(0, 12)}</code>
                </td>
                <td>{snapshot.is_baseline ? 'baseline' : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      {page && page.total > page.items.length && (
        <p className="muted">
          The newest {page.items.length} of {page.total}.
        </p>
      )}
    </QueryState>
  );
}
