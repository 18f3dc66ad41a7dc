// Bridge: copy tables from one connection to another, with the tables picked from the source's live
// schema, the mode, the option to create missing tables, which rows (filters, subset) and an
// anonymization config applied in flight; the run's progress in rows, then the rows per table; and
// the project's past copies with their outcome.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Run } from '../api/types.ts';
import { Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { ListTable } from '../components/ListTable.tsx';
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
  const [anonymizeConfig, setAnonymizeConfig] = useState('');
  const queryClient = useQueryClient();
  const configs = useQuery({
    queryKey: ['anonymize', pid],
    queryFn: () => call(api.GET('/api/v1/anonymize/configs', { params: { query: { project_id: pid } } })),
  });
  const schema = useLiveSchema(source);
  const tableName = (t: { schema?: string | null; name: string }) =>
    t.schema ? `${t.schema}.${t.name}` : t.name;
  const names = schema.data?.tables.map(tableName) ?? [];
  // An example condition per table on a column it has (its key first), for the filter's placeholder.
  const exampleColumn = Object.fromEntries(
    (schema.data?.tables ?? []).map((t) => [tableName(t), t.primary_key?.columns[0] ?? t.columns[0]?.name]),
  );
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
            ...(anonymizeConfig && { anonymize_config_id: anonymizeConfig }),
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
      queryClient.invalidateQueries({ queryKey: ['runs', 'copies', pid] });
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
      <h1>Bridge: copy between connections</h1>
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
          <label>
            Anonymize with
            <select value={anonymizeConfig} onChange={(e) => setAnonymizeConfig(e.target.value)}>
              <option value="">No anonymization: values as they are</option>
              {configs.data?.items.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
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
          <CopyRowOptions
            tables={names}
            filtered={tables}
            exampleColumn={exampleColumn}
            value={rowOptions}
            onChange={setRowOptions}
          />
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
          onEnd={(run: Run) => {
            setResult((run.result as CopyResult) ?? undefined);
            queryClient.invalidateQueries({ queryKey: ['runs', 'copies', pid] });
          }}
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
      <PastCopies projectId={pid} />
    </>
  );
}

/** The project's copies, newest first: what was copied, how it ended, how many rows. */
function PastCopies({ projectId }: { projectId: string }) {
  const copies = useQuery({
    queryKey: ['runs', 'copies', projectId],
    queryFn: () =>
      call(api.GET('/api/v1/runs', { params: { query: { project_id: projectId, kind: 'bridge_run' } } })),
  });
  return (
    <section aria-labelledby="past-copies">
      <h2 id="past-copies">Past copies</h2>
      <ListTable
        query={copies}
        label="Past copies"
        empty="No copies yet."
        columns={['Copy', 'Status', 'Rows', 'Started']}
        row={(run) => (
          <tr key={run.id}>
            <td className="break">
              <Link to={`/projects/${projectId}/runs/${run.id}`}>{run.subject?.title ?? 'copy'}</Link>
            </td>
            <td>
              <Status value={run.status} />
            </td>
            <td>{(run.result as CopyResult | null)?.rows_total ?? '—'}</td>
            <td>{run.started_at ? new Date(run.started_at).toLocaleString() : '—'}</td>
          </tr>
        )}
      />
    </section>
  );
}
