// Seed scenarios: tables picked from the live schema with a row count each (the service infers a
// generator for every column from its name and type), a seed for repeatable output, a preview of the
// rows, and the run with its progress.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema';
import { ConfigList } from '../components/ConfigList.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { NewConfigForm } from '../components/NewConfigForm.tsx';
import { RowsTable } from '../components/RowsTable.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { countOf } from '../lib/plural.ts';
import { type ColumnChoice, GENERATOR_KINDS, generatorColumns } from '../lib/seed-columns.ts';
import { useLiveSchema } from '../shell/connections.ts';

type Scenario = components['schemas']['SeedScenario'];

export function SeedsPage() {
  const { pid = '' } = useParams();
  const queryClient = useQueryClient();
  const scenarios = useQuery({
    queryKey: ['seeds', pid],
    queryFn: () => call(api.GET('/api/v1/seed/scenarios', { params: { query: { project_id: pid } } })),
  });
  return (
    <ConfigList
      title="Seed scenarios"
      list={scenarios}
      empty="No scenarios yet."
      newForm={(onCreated) => <NewScenario projectId={pid} onCreated={onCreated} />}
      summary={(s) =>
        `${s.definition.tables.map((t) => `${t.table} × ${t.rows}`).join(', ')} · seed ${s.seed}`
      }
      detail={(s) => <ScenarioDetail scenario={s} />}
      deletion={{
        noun: 'seed scenario',
        consequences: (s) => (
          <p>
            Its {countOf(s.definition.tables.length, 'table')} and their generators go with it. The rows its
            runs wrote stay in the database, and its runs stay in the project's runs.
          </p>
        ),
        remove: (s) => call(api.DELETE('/api/v1/seed/scenarios/{id}', { params: { path: { id: s.id } } })),
        onDeleted: () => queryClient.invalidateQueries({ queryKey: ['seeds', pid] }),
      }}
    />
  );
}

function NewScenario({ projectId, onCreated }: { projectId: string; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [seed, setSeed] = useState(1);
  const [tables, setTables] = useState<{ table: string; rows: number }[]>([]);
  const schema = useLiveSchema(connectionId);
  const tableName = (t: { schema?: string | null; name: string }) =>
    t.schema ? `${t.schema}.${t.name}` : t.name;
  const names = schema.data?.tables.map(tableName) ?? [];
  // Per table and column: the generator chosen in the form ('' = inferred by the service).
  const [choices, setChoices] = useState<Record<string, Record<string, ColumnChoice>>>({});
  const choose = (table: string, column: string, change: Partial<ColumnChoice>) => {
    const current = choices[table]?.[column] ?? { kind: '', options: '' };
    setChoices({ ...choices, [table]: { ...choices[table], [column]: { ...current, ...change } } });
  };
  const create = useMutation({
    mutationFn: () => {
      const definition = {
        tables: tables.map((t) => {
          const columns = generatorColumns(t.table, choices[t.table] ?? {});
          return columns ? { ...t, columns } : t;
        }),
      };
      return call(
        api.POST('/api/v1/seed/scenarios', {
          body: { project_id: projectId, connection_id: connectionId, name, seed, definition },
        }),
      );
    },
    onSuccess: (created) => {
      setName('');
      setTables([]);
      setChoices({});
      queryClient.invalidateQueries({ queryKey: ['seeds', projectId] });
      onCreated(created.id);
    },
  });
  const setRows = (table: string, rows: number) =>
    setTables(
      rows > 0
        ? [...tables.filter((t) => t.table !== table), { table, rows }]
        : tables.filter((t) => t.table !== table),
    );
  return (
    <NewConfigForm
      label="New seed scenario"
      projectId={projectId}
      nameLabel="Scenario name"
      name={name}
      onNameChange={setName}
      connectionId={connectionId}
      onConnectionChange={(id) => {
        setConnectionId(id);
        setTables([]);
      }}
      settings={
        <label>
          Seed
          <input type="number" required value={seed} onChange={(e) => setSeed(Number(e.target.value))} />
        </label>
      }
      submitLabel="Save scenario"
      submitDisabled={create.isPending || tables.length === 0}
      error={schema.error ?? create.error}
      onSubmit={() => create.mutate()}
    >
      {names.length > 0 && (
        <fieldset>
          <legend>Rows per table (0: not seeded)</legend>
          {names.map((table) => (
            <label key={table} className="inline">
              {table}
              <input
                type="number"
                min={0}
                value={tables.find((t) => t.table === table)?.rows ?? 0}
                onChange={(e) => setRows(table, Number(e.target.value))}
              />
            </label>
          ))}
        </fieldset>
      )}
      {tables.map(({ table }) => (
        <fieldset key={table} className="grid-form">
          <legend>Generators of {table} (empty: inferred from the name and type)</legend>
          {schema.data?.tables
            .find((t) => tableName(t) === table)
            ?.columns.map((column) => {
              const choice = choices[table]?.[column.name] ?? { kind: '', options: '' };
              return (
                <div key={column.name} className="inline-form">
                  <label>
                    Generator of {column.name}
                    <select
                      value={choice.kind}
                      onChange={(e) => choose(table, column.name, { kind: e.target.value })}
                    >
                      <option value="">inferred</option>
                      {GENERATOR_KINDS.map((kind) => (
                        <option key={kind}>{kind}</option>
                      ))}
                    </select>
                  </label>
                  {choice.kind && (
                    <label>
                      Options of {column.name} (JSON)
                      <input
                        value={choice.options}
                        placeholder='{"min": 1, "max": 100}'
                        onChange={(e) => choose(table, column.name, { options: e.target.value })}
                      />
                    </label>
                  )}
                </div>
              );
            })}
        </fieldset>
      ))}
    </NewConfigForm>
  );
}

function ScenarioDetail({ scenario }: { scenario: Scenario }) {
  const [runId, setRunId] = useState<string | undefined>();
  const preview = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/seed/scenarios/{id}/preview', { params: { path: { id: scenario.id } } })),
  });
  const run = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/seed/scenarios/{id}/run', { params: { path: { id: scenario.id } } })),
    onSuccess: (started) => setRunId(started.id),
  });
  return (
    <section className="card stack" aria-label={`Scenario ${scenario.name}`}>
      <h2>{scenario.name}</h2>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => preview.mutate()}
          disabled={preview.isPending}
        >
          Preview rows
        </button>
        <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>
          Run seed
        </button>
      </div>
      <ErrorText error={preview.error ?? run.error} />
      {preview.data?.tables.map((t) => (
        <RowsTable key={t.table} caption={t.table} rows={t.rows} />
      ))}
      {runId && <RunProgress key={runId} runId={runId} />}
    </section>
  );
}
