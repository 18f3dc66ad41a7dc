// One patch: its SQL, a dry-run with sample rows before and after per statement, execute with the
// expected row count, rollback that shows conflicts and offers to force, edit and delete. Which of
// these it offers is the server's `allowed_actions` (a failed execute changed nothing, so a failed
// patch offers Execute again); a refusal (409: a run of the patch in flight) links to that run.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Patch, PatchAction, PatchDryRun, Run } from '../api/types.ts';
import { Status } from '../components/Badge.tsx';
import { DeleteAction } from '../components/DeleteAction.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { RowsTable } from '../components/RowsTable.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { SqlEditor } from '../components/SqlEditor.tsx';
import { QueryState } from '../components/States.tsx';
import { countOf } from '../lib/plural.ts';

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
  const [editing, setEditing] = useState(false);
  const [runId, setRunId] = useState<string | undefined>();
  const [conflicts, setConflicts] = useState<RollbackConflicts['conflicts']>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['patch', id] });
  const started = (run: Run) => {
    setRunId(run.id);
    setConflicts(undefined);
    refresh();
  };

  const dryRun = useMutation({
    mutationFn: () => call(api.POST('/api/v1/patches/{id}/dry-run', { params: { path: { id } } })),
    onSuccess: (result) => setExpected(String(result.total_affected_rows)),
    onError: refresh,
  });
  const execute = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/patches/{id}/execute', {
          params: { path: { id } },
          body: expected.trim() === '' ? {} : { expected_rows: Number(expected) },
        }),
      ),
    onSuccess: started,
    onError: refresh,
  });
  const rollback = useMutation({
    mutationFn: (force: boolean) =>
      call(
        api.POST('/api/v1/patches/{id}/rollback', { params: { path: { id } }, body: force ? { force } : {} }),
      ),
    onSuccess: started,
    onError: refresh,
  });
  const onRunEnd = (run: Run) => {
    refresh();
    const result = run.result as RollbackConflicts | null;
    if (run.kind === 'patch_rollback' && result?.conflicts?.length) setConflicts(result.conflicts);
  };

  const p = patch.data;
  const can = (action: PatchAction) => p?.allowed_actions.includes(action) ?? false;
  return (
    <QueryState
      isLoading={patch.isLoading}
      error={patch.error}
      onRetry={() => void patch.refetch()}
      retrying={patch.isFetching}
    >
      {p && (
        <>
          <div className="page-head">
            <h1>{p.title}</h1>
            <Status value={p.status} />
          </div>
          {p.status === 'failed' && <p className="muted">The last execute failed and changed nothing.</p>}
          {editing && can('edit') ? (
            <PatchEditForm patch={p} onDone={() => setEditing(false)} />
          ) : (
            <>
              <SqlEditor label="Patch SQL" value={p.sql} readOnly />
              <ul className="compact">
                {p.statements.map((s) => (
                  <li key={s.index}>
                    #{s.index + 1} {s.kind} on {s.table} {s.reversible ? '' : '(not reversible)'}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div className="actions">
            {can('dry_run') && (
              <button
                type="button"
                className="secondary"
                onClick={() => dryRun.mutate()}
                disabled={dryRun.isPending}
              >
                {dryRun.isPending ? 'Dry-running…' : 'Dry-run'}
              </button>
            )}
            {can('execute') && (
              <>
                <label className="inline">
                  Expected rows
                  <input
                    type="number"
                    min={0}
                    value={expected}
                    onChange={(e) => setExpected(e.target.value)}
                  />
                </label>
                <button type="button" onClick={() => execute.mutate()} disabled={execute.isPending}>
                  Execute
                </button>
              </>
            )}
            {can('rollback') && (
              <button
                type="button"
                className="secondary"
                onClick={() => rollback.mutate(false)}
                disabled={rollback.isPending}
              >
                Roll back
              </button>
            )}
            {can('edit') && !editing && (
              <button type="button" className="secondary" onClick={() => setEditing(true)}>
                Edit
              </button>
            )}
            {can('delete') && <PatchDeletion patch={p} />}
          </div>
          <ErrorText error={dryRun.error} />
          <ErrorText error={execute.error} />
          <ErrorText error={rollback.error} />
          {dryRun.data && <DryRunResult dryRun={dryRun.data} />}
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
              {can('rollback') && (
                <button type="button" className="danger" onClick={() => rollback.mutate(true)}>
                  Force the rollback
                </button>
              )}
            </section>
          )}
          {runId && <RunProgress key={runId} runId={runId} onEnd={onRunEnd} />}
        </>
      )}
    </QueryState>
  );
}

function DryRunResult({ dryRun }: { dryRun: PatchDryRun }) {
  return (
    <section aria-label="Dry-run" className="card">
      <h2>Dry-run: {countOf(dryRun.total_affected_rows, 'row')} would change</h2>
      {dryRun.notes.length > 0 && (
        <ul className="compact">
          {dryRun.notes.map((note) => (
            <li key={`${note.statement_index}-${note.text}`} className="muted">
              Statement {note.statement_index + 1}: {note.text}
            </li>
          ))}
        </ul>
      )}
      {dryRun.statements.map((s) => (
        <div key={s.index} className="split">
          <RowsTable
            rows={s.sample_before}
            caption={`Statement ${s.index + 1} before (${countOf(s.affected_rows, 'row')})`}
          />
          <RowsTable rows={s.sample_after} caption={`Statement ${s.index + 1} after`} />
        </div>
      ))}
    </section>
  );
}

/** The title and SQL edited (the SQL is parsed again; an approval waiting for the old SQL is voided). */
function PatchEditForm({ patch, onDone }: { patch: Patch; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(patch.title);
  const [sql, setSql] = useState(patch.sql);
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH('/api/v1/patches/{id}', {
          params: { path: { id: patch.id } },
          body: { ...(title !== patch.title && { title }), ...(sql !== patch.sql && { sql }) },
        }),
      ),
    onSuccess: (saved) => {
      queryClient.setQueryData(['patch', patch.id], saved);
      queryClient.invalidateQueries({ queryKey: ['patches'] });
      onDone();
    },
    onError: () => queryClient.invalidateQueries({ queryKey: ['patch', patch.id] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-label="Edit patch">
      <label>
        Title
        <input required value={title} onChange={(e) => setTitle(e.target.value)} />
      </label>
      <SqlEditor label="Patch SQL" value={sql} onChange={setSql} />
      <div className="actions">
        <button type="submit" disabled={save.isPending || sql.trim() === ''}>
          Save patch
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorText error={save.error} />
    </form>
  );
}

/** Delete, asked first in a dialog that says what goes; then back to the project's patches. */
function PatchDeletion({ patch }: { patch: Patch }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <DeleteAction
      noun="patch"
      name={patch.title}
      consequences={
        <p>
          Its SQL goes, and an approval it waits for is voided. Its runs stay in the project's runs and the
          audit log keeps its entries; the database is not touched.
        </p>
      }
      remove={() => call(api.DELETE('/api/v1/patches/{id}', { params: { path: { id: patch.id } } }))}
      onDeleted={() => {
        queryClient.invalidateQueries({ queryKey: ['patches'] });
        navigate(`/projects/${patch.project_id}/patches`);
      }}
    />
  );
}
