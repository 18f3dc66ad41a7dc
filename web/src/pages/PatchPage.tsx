// One patch: its SQL, a dry-run with sample rows before and after per statement, execute with the
// expected row count, and rollback that shows conflicts and offers to force.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Run } from '../api/types.ts';
import { Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { RowsTable } from '../components/RowsTable.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { SqlEditor } from '../components/SqlEditor.tsx';
import { QueryState } from '../components/States.tsx';

interface RollbackConflicts {
  conflicts?: { index: number; table: string; keys: Record<string, unknown>[] }[];
}

export function PatchPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const patch = useQuery({
    queryKey: ['patch', id],
    queryFn: () => call(api.GET('/api/v1/patches/{id}', { params: { path: { id } } })),
  });
  const [expected, setExpected] = useState('');
  const [runId, setRunId] = useState<string | undefined>();
  const [conflicts, setConflicts] = useState<RollbackConflicts['conflicts']>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['patch', id] });

  const dryRun = useMutation({
    mutationFn: () => call(api.POST('/api/v1/patches/{id}/dry-run', { params: { path: { id } } })),
    onSuccess: (result) => setExpected(String(result.total_affected_rows)),
  });
  const execute = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/patches/{id}/execute', {
          params: { path: { id } },
          body: expected.trim() === '' ? {} : { expected_rows: Number(expected) },
        }),
      ),
    onSuccess: (run) => {
      setRunId(run.id);
      setConflicts(undefined);
      refresh();
    },
  });
  const rollback = useMutation({
    mutationFn: (force: boolean) =>
      call(
        api.POST('/api/v1/patches/{id}/rollback', { params: { path: { id } }, body: force ? { force } : {} }),
      ),
    onSuccess: (run) => {
      setRunId(run.id);
      setConflicts(undefined);
      refresh();
    },
  });
  const onRunEnd = (run: Run) => {
    refresh();
    const result = run.result as RollbackConflicts | null;
    if (run.kind === 'patch_rollback' && result?.conflicts?.length) setConflicts(result.conflicts);
  };

  const p = patch.data;
  return (
    <QueryState isLoading={patch.isLoading} error={patch.error}>
      {p && (
        <>
          <div className="page-head">
            <h1>{p.title}</h1>
            <Status value={p.status} />
          </div>
          <SqlEditor label="Patch SQL" value={p.sql} readOnly />
          <ul className="compact">
            {p.statements.map((s) => (
              <li key={s.index}>
                #{s.index + 1} {s.kind} on {s.table} {s.reversible ? '' : '(not reversible)'}
              </li>
            ))}
          </ul>
          {p.status === 'draft' && (
            <div className="actions">
              <button
                type="button"
                className="secondary"
                onClick={() => dryRun.mutate()}
                disabled={dryRun.isPending}
              >
                {dryRun.isPending ? 'Dry-running…' : 'Dry-run'}
              </button>
              <label className="inline">
                Expected rows
                <input type="number" min={0} value={expected} onChange={(e) => setExpected(e.target.value)} />
              </label>
              <button type="button" onClick={() => execute.mutate()} disabled={execute.isPending}>
                Execute
              </button>
            </div>
          )}
          <ErrorText error={dryRun.error} />
          <ErrorText error={execute.error} />
          {dryRun.data && (
            <section aria-label="Dry-run" className="card">
              <h2>Dry-run: {dryRun.data.total_affected_rows} rows would change</h2>
              {dryRun.data.statements.map((s) => (
                <div key={s.index} className="split">
                  <RowsTable
                    rows={s.sample_before}
                    caption={`Statement ${s.index + 1} before (${s.affected_rows} rows)`}
                  />
                  <RowsTable rows={s.sample_after} caption={`Statement ${s.index + 1} after`} />
                </div>
              ))}
            </section>
          )}
          {p.status === 'executed' && (
            <div className="actions">
              <button
                type="button"
                className="secondary"
                onClick={() => rollback.mutate(false)}
                disabled={rollback.isPending}
              >
                Roll back
              </button>
            </div>
          )}
          <ErrorText error={rollback.error} />
          {conflicts && (
            <section className="card" aria-label="Rollback conflicts">
              <p className="error" role="alert">
                Rows changed since the patch ran: nothing was restored.
              </p>
              <ul className="compact">
                {conflicts.map((c) => (
                  <li key={`${c.index}-${c.table}`}>
                    {c.table}: {c.keys.map((k) => JSON.stringify(k)).join(', ')}
                  </li>
                ))}
              </ul>
              <button type="button" className="danger" onClick={() => rollback.mutate(true)}>
                Force the rollback
              </button>
            </section>
          )}
          {runId && <RunProgress key={runId} runId={runId} onEnd={onRunEnd} />}
        </>
      )}
    </QueryState>
  );
}
