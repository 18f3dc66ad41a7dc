// One migration: the generated SQL in the editor, each statement with the lint warnings that name it
// beside it, save (re-lint), apply with confirmation, the run's progress, and rollback.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { Severity, Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { SqlEditor } from '../components/SqlEditor.tsx';
import { QueryState } from '../components/States.tsx';
import { blockingWarnings, destructiveStatements, warningsByStatement } from '../lib/lint.ts';
import { useConnections } from '../shell/connections.ts';
import { ApplyConfirmation } from './ApplyDialog.tsx';

export function MigrationPage() {
  const { pid = '', id = '' } = useParams();
  const queryClient = useQueryClient();
  const connections = useConnections(pid);
  const migration = useQuery({
    queryKey: ['migration', id],
    queryFn: () => call(api.GET('/api/v1/migrations/{id}', { params: { path: { id } } })),
  });
  const [draft, setDraft] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [runId, setRunId] = useState<string | undefined>();
  useEffect(() => setDraft(migration.data?.generated_sql), [migration.data?.generated_sql]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['migration', id] });
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH('/api/v1/migrations/{id}', {
          params: { path: { id } },
          body: { generated_sql: draft ?? '' },
        }),
      ),
    onSuccess: (saved) => queryClient.setQueryData(['migration', id], saved),
  });
  const apply = useMutation({
    mutationFn: (body: { confirm_irreversible?: boolean; confirmation?: string }) =>
      call(api.POST('/api/v1/migrations/{id}/apply', { params: { path: { id } }, body })),
    onSuccess: (run) => {
      setConfirming(false);
      setRunId(run.id);
      refresh();
    },
  });
  const rollback = useMutation({
    mutationFn: () => call(api.POST('/api/v1/migrations/{id}/rollback', { params: { path: { id } } })),
    onSuccess: (run) => {
      setRunId(run.id);
      refresh();
    },
  });

  const m = migration.data;
  const target = connections.data?.items.find((c) => c.id === m?.target_connection_id);
  const source = connections.data?.items.find((c) => c.id === m?.source_connection_id);
  const edited = m !== undefined && draft !== undefined && draft !== m.generated_sql;
  const blocking = m ? blockingWarnings(m.lint_warnings) : [];

  return (
    <QueryState isLoading={migration.isLoading} error={migration.error}>
      {m && (
        <>
          <div className="page-head">
            <h1>
              Migration {source?.name ?? ''} → {target?.name ?? ''}
            </h1>
            <Status value={m.status} />
          </div>
          <div className="split">
            <section aria-label="SQL">
              <h2>SQL</h2>
              <SqlEditor
                label="Migration SQL"
                value={draft ?? ''}
                onChange={setDraft}
                readOnly={m.status !== 'draft'}
              />
              {m.status === 'draft' && (
                <div className="actions">
                  <button type="button" disabled={!edited || save.isPending} onClick={() => save.mutate()}>
                    Save and re-lint
                  </button>
                  <button
                    type="button"
                    disabled={edited || blocking.length > 0 || m.statements.length === 0}
                    onClick={() => setConfirming(true)}
                  >
                    Apply…
                  </button>
                </div>
              )}
              {edited && <p className="muted">Save the edit before applying.</p>}
              {blocking.length > 0 && (
                <p className="error" role="alert">
                  {blocking.length} error-level warning(s) block apply until the SQL is edited.
                </p>
              )}
              <ErrorText error={save.error} />
              <ErrorText error={apply.error} />
              {m.status === 'applied' && m.rollback_sql && (
                <div className="actions">
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => rollback.mutate()}
                    disabled={rollback.isPending}
                  >
                    Roll back
                  </button>
                </div>
              )}
              <ErrorText error={rollback.error} />
            </section>
            <section aria-label="Statements and lint warnings">
              <h2>Statements and warnings</h2>
              {m.statements.length === 0 && (
                <p className="muted empty">The schemas are the same: nothing to do.</p>
              )}
              <ol className="statements">
                {warningsByStatement(m.statements, m.lint_warnings).map(({ index, statement, warnings }) => (
                  <li key={index} className={statement.destructive ? 'destructive' : ''}>
                    <code>{statement.sql}</code>
                    {statement.destructive && <span className="tag danger">destroys data</span>}
                    {warnings.map((w) => (
                      <p
                        key={`${w.rule}-${w.object}`}
                        className={`lint lint-${w.severity}`}
                        data-testid="lint-warning"
                      >
                        <Severity value={w.severity} /> <strong>{w.rule}</strong> {w.message}
                      </p>
                    ))}
                  </li>
                ))}
              </ol>
            </section>
          </div>
          {confirming && (
            <ApplyConfirmation
              targetName={target?.name ?? ''}
              destructive={destructiveStatements(m.statements)}
              onConfirm={(body) => apply.mutate(body)}
              onCancel={() => setConfirming(false)}
              pending={apply.isPending}
            />
          )}
          {runId && <RunProgress key={runId} runId={runId} onEnd={refresh} />}
        </>
      )}
    </QueryState>
  );
}
