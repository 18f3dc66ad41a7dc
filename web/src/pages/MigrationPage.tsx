// One migration: the generated SQL in the editor, each statement with the lint warnings that name it
// beside it, save (re-lint), apply with confirmation, the run's progress, the rollback's statements
// and its confirmation, and the backup tables apply left in the target. Which of edit, apply and
// roll back it offers is the server's `allowed_actions`, nothing else.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Migration, MigrationAction, Run } from '../api/types.ts';
import { Severity, Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { SqlEditor } from '../components/SqlEditor.tsx';
import { StatementList } from '../components/StatementList.tsx';
import { QueryState } from '../components/States.tsx';
import { blockingWarnings, destructiveStatements, warningsByStatement } from '../lib/lint.ts';
import { useConnections } from '../shell/connections.ts';
import {
  type ConfirmationBody,
  MigrationConfirmation,
  type MigrationRunAction,
} from './MigrationConfirmation.tsx';

export function MigrationPage() {
  const { pid = '', id = '' } = useParams();
  const queryClient = useQueryClient();
  const connections = useConnections(pid);
  const migration = useQuery({
    queryKey: ['migration', id],
    queryFn: () => call(api.GET('/api/v1/migrations/{id}', { params: { path: { id } } })),
  });
  const [draft, setDraft] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<MigrationRunAction | undefined>();
  const [runId, setRunId] = useState<string | undefined>();
  useEffect(() => setDraft(migration.data?.generated_sql), [migration.data?.generated_sql]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['migration', id] });
  const started = (run: Run) => {
    setConfirming(undefined);
    setRunId(run.id);
    refresh();
  };
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH('/api/v1/migrations/{id}', {
          params: { path: { id } },
          body: { generated_sql: draft ?? '' },
        }),
      ),
    onSuccess: (saved) => queryClient.setQueryData(['migration', id], saved),
    onError: refresh,
  });
  const apply = useMutation({
    mutationFn: (body: ConfirmationBody) =>
      call(api.POST('/api/v1/migrations/{id}/apply', { params: { path: { id } }, body })),
    onSuccess: started,
    onError: refresh,
  });
  const rollback = useMutation({
    mutationFn: (body: ConfirmationBody) =>
      call(api.POST('/api/v1/migrations/{id}/rollback', { params: { path: { id } }, body })),
    onSuccess: started,
    onError: refresh,
  });
  const confirm = (action: MigrationRunAction) => {
    (action === 'apply' ? apply : rollback).reset();
    setConfirming(action);
  };

  const m = migration.data;
  const target = connections.data?.items.find((c) => c.id === m?.target_connection_id);
  const source = connections.data?.items.find((c) => c.id === m?.source_connection_id);
  const edited = m !== undefined && draft !== undefined && draft !== m.generated_sql;
  const can = (action: MigrationAction) => m?.allowed_actions.includes(action) ?? false;
  const blocking = m ? blockingWarnings(m.lint_warnings) : [];
  const reviewed = m ? warningsByStatement(m.statements, m.lint_warnings) : [];

  return (
    <QueryState
      isLoading={migration.isLoading}
      error={migration.error}
      onRetry={() => void migration.refetch()}
      retrying={migration.isFetching}
    >
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
                readOnly={!can('edit')}
              />
              <div className="actions">
                {can('edit') && (
                  <button type="button" disabled={!edited || save.isPending} onClick={() => save.mutate()}>
                    Save and re-lint
                  </button>
                )}
                {can('apply') && (
                  <button type="button" disabled={edited} onClick={() => confirm('apply')}>
                    Apply…
                  </button>
                )}
              </div>
              {edited && <p className="muted">Save the edit before applying.</p>}
              {blocking.length > 0 && !can('apply') && (
                <p className="error" role="alert">
                  {blocking.length} error-level warning(s) block apply until the SQL is edited.
                </p>
              )}
              <ErrorText error={save.error} />
              {confirming !== 'apply' && <ErrorText error={apply.error} />}
            </section>
            <section aria-label="Statements and lint warnings">
              <h2>Statements and warnings</h2>
              {m.statements.length === 0 && (
                <p className="muted empty">The schemas are the same: nothing to do.</p>
              )}
              <StatementList
                statements={m.statements}
                label="Statements"
                beside={(_, index) =>
                  reviewed[index]?.warnings.map((w) => (
                    <p
                      key={`${w.rule}-${w.object}`}
                      className={`lint lint-${w.severity}`}
                      data-testid="lint-warning"
                    >
                      <Severity value={w.severity} /> <strong>{w.rule}</strong> {w.message}
                    </p>
                  ))
                }
              />
            </section>
          </div>
          {confirming === 'apply' && (
            <MigrationConfirmation
              action="apply"
              targetName={target?.name ?? ''}
              destructive={destructiveStatements(m.statements)}
              onConfirm={(body) => apply.mutate(body)}
              onCancel={() => setConfirming(undefined)}
              pending={apply.isPending}
              error={apply.error}
            />
          )}
          <RollbackSection migration={m} canRollBack={can('rollback')} onRollBack={() => confirm('rollback')}>
            {confirming === 'rollback' ? (
              <MigrationConfirmation
                action="rollback"
                targetName={target?.name ?? ''}
                destructive={m.rollback_statements.filter((s) => s.destructive)}
                onConfirm={(body) => rollback.mutate(body)}
                onCancel={() => setConfirming(undefined)}
                pending={rollback.isPending}
                error={rollback.error}
              />
            ) : (
              <ErrorText error={rollback.error} />
            )}
          </RollbackSection>
          <BackupTables migration={m} />
          {runId && <RunProgress key={runId} runId={runId} onEnd={refresh} />}
        </>
      )}
    </QueryState>
  );
}

/** The rollback's statements, the destructive ones marked, and Roll back… when the server allows it. */
function RollbackSection({
  migration,
  canRollBack,
  onRollBack,
  children,
}: {
  migration: Migration;
  canRollBack: boolean;
  onRollBack: () => void;
  children: ReactNode;
}) {
  const statements = migration.rollback_statements;
  const destructive = statements.filter((s) => s.destructive).length;
  return (
    <section className="card" aria-label="Rollback">
      <h2>Rollback</h2>
      {statements.length === 0 ? (
        <p className="muted empty">No rollback can be generated for this migration.</p>
      ) : (
        <>
          {destructive > 0 && (
            <p className="muted">
              {destructive} of its statements destroy data: rolling back asks for the target's name.
            </p>
          )}
          <StatementList statements={statements} label="Rollback statements" />
        </>
      )}
      {canRollBack && (
        <div className="actions">
          <button type="button" className="secondary" onClick={onRollBack}>
            Roll back…
          </button>
        </div>
      )}
      {children}
    </section>
  );
}

/** The backup tables apply left in the target (restored from and dropped by a rollback). */
function BackupTables({ migration }: { migration: Migration }) {
  if (migration.backup_tables.length === 0) return null;
  return (
    <section className="card" aria-label="Backup tables">
      <h2>Backup tables</h2>
      <ul className="compact">
        {migration.backup_tables.map((table) => (
          <li key={table.name}>
            <code className="break">{table.name}</code>{' '}
            <span className="muted">
              {table.kept_until
                ? `kept until ${new Date(table.kept_until).toLocaleString()}`
                : 'kept until a rollback restores from it'}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
