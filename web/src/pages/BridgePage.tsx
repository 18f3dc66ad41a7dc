// Bridge: copy tables from one connection to another, with the tables picked from the source's live
// schema, the mode, the option to create missing tables, and which rows (filters, subset); the run's
// progress in rows, then the rows per table.
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Run } from '../api/types.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { useConnections, useLiveSchema } from '../shell/connections.ts';
import { CopyRowOptions, NO_ROW_OPTIONS, type RowOptions, rowOptionsBody } from './CopyRowOptions.tsx';

type Mode = 'replace' | 'append' | 'upsert';
interface CopyResult {
  tables?: { table: string; rows: number }[];
  rows_total?: number;
}

export function BridgePage() {
  const { pid = '' } = useParams();
  const connections = useConnections(pid);
  const [source, setSource] = useState('');
  const [target, setTarget] = useState('');
  const [mode, setMode] = useState<Mode>('replace');
  const [createTables, setCreateTables] = useState(false);
  const [tables, setTables] = useState<string[]>([]);
  const [rowOptions, setRowOptions] = useState<RowOptions>(NO_ROW_OPTIONS);
  const [runId, setRunId] = useState<string | undefined>();
  const [result, setResult] = useState<CopyResult | undefined>();
  const schema = useLiveSchema(source);
  const names = schema.data?.tables.map((t) => (t.schema ? `${t.schema}.${t.name}` : t.name)) ?? [];
  const start = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/projects/{pid}/bridge/run', {
          params: { path: { pid } },
          body: {
            source_connection_id: source,
            target_connection_id: target,
            mode,
            create_tables: createTables,
            ...(tables.length > 0 && { tables }),
            ...rowOptionsBody({
              ...rowOptions,
              // Only the ticked tables' filters: unticking a table drops its condition.
              filters: Object.fromEntries(
                Object.entries(rowOptions.filters).filter(([t]) => tables.includes(t)),
              ),
            }),
          },
        }),
      ),
    onSuccess: (run) => {
      setResult(undefined);
      setRunId(run.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };
  const options = connections.data?.items.map((c) => (
    <option key={c.id} value={c.id}>
      {c.name} ({c.environment})
    </option>
  ));
  return (
    <>
      <h1>Copy between connections</h1>
      <form className="card stack" onSubmit={submit} aria-label="Copy tables">
        <div className="inline-form">
          <label>
            From
            <select
              required
              value={source}
              onChange={(e) => {
                setSource(e.target.value);
                setTables([]);
                setRowOptions(NO_ROW_OPTIONS);
              }}
            >
              <option value="">Choose…</option>
              {options}
            </select>
          </label>
          <label>
            To
            <select required value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">Choose…</option>
              {options}
            </select>
          </label>
          <label>
            Mode
            <select value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
              <option value="replace">replace (empty the target tables first)</option>
              <option value="append">append</option>
              <option value="upsert">upsert by primary key</option>
            </select>
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={createTables}
              onChange={(e) => setCreateTables(e.target.checked)}
            />
            Create missing tables
          </label>
        </div>
        {names.length > 0 && (
          <fieldset>
            <legend>Tables (none ticked: every table)</legend>
            {names.map((name) => (
              <label key={name} className="checkbox">
                <input
                  type="checkbox"
                  checked={tables.includes(name)}
                  onChange={(e) =>
                    setTables(e.target.checked ? [...tables, name] : tables.filter((t) => t !== name))
                  }
                />
                {name}
              </label>
            ))}
          </fieldset>
        )}
        {names.length > 0 && (
          <CopyRowOptions tables={names} filtered={tables} value={rowOptions} onChange={setRowOptions} />
        )}
        <ErrorText error={schema.error} />
        <div className="actions">
          <button type="submit" disabled={start.isPending}>
            Start copy
          </button>
        </div>
        <ErrorText error={start.error} />
      </form>
      {runId && (
        <RunProgress
          key={runId}
          runId={runId}
          onEnd={(run: Run) => setResult((run.result as CopyResult) ?? undefined)}
        />
      )}
      {result?.tables && (
        <ScrollTable label="Rows copied">
          <table className="table" data-testid="copy-result">
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Rows</th>
              </tr>
            </thead>
            <tbody>
              {result.tables.map((t) => (
                <tr key={t.table}>
                  <td>{t.table}</td>
                  <td>{t.rows}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
    </>
  );
}
