// Anonymization: configs per connection with rules picked from the live schema (table, column,
// transformer and its options), the PII scan (what looks personal and whether a rule covers it),
// a preview of values before and after, and the run in place with its progress.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema';
import { ErrorText } from '../components/ErrorText.tsx';
import { RowsTable } from '../components/RowsTable.tsx';
import { RunProgress } from '../components/RunProgress.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { QueryState } from '../components/States.tsx';
import { useConnections } from '../shell/connections.ts';
import { ConfigRulesForm, type RuleDraft, RulesEditor, rulesOf } from './AnonymizeRules.tsx';

type Config = components['schemas']['AnonymizeConfig'];

export function AnonymizePage() {
  const { pid = '' } = useParams();
  const configs = useQuery({
    queryKey: ['anonymize', pid],
    queryFn: () => call(api.GET('/api/v1/anonymize/configs', { params: { query: { project_id: pid } } })),
  });
  const [selected, setSelected] = useState<string | undefined>();
  const config = configs.data?.items.find((c) => c.id === selected);
  return (
    <>
      <h1>Anonymization</h1>
      <NewConfig projectId={pid} onCreated={setSelected} />
      <QueryState
        isLoading={configs.isLoading}
        error={configs.error}
        isEmpty={configs.data?.items.length === 0}
        empty="No configs yet."
      >
        <ul className="list">
          {configs.data?.items.map((c) => (
            <li key={c.id} className="card row">
              <strong>{c.name}</strong>
              <span className="muted">{c.rules.length} rules</span>
              <span className="spacer" />
              <button
                type="button"
                className="secondary"
                aria-pressed={selected === c.id}
                onClick={() => setSelected(c.id)}
              >
                Open {c.name}
              </button>
            </li>
          ))}
        </ul>
      </QueryState>
      {config && <ConfigDetail key={config.id} config={config} />}
    </>
  );
}

function NewConfig({ projectId, onCreated }: { projectId: string; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const connections = useConnections(projectId);
  const [name, setName] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [rules, setRules] = useState<RuleDraft[]>([]);
  const schema = useQuery({
    queryKey: ['schema', connectionId],
    // Live: a table created a moment ago must be pickable at once.
    staleTime: 0,
    queryFn: () =>
      call(api.GET('/api/v1/connections/{id}/schema', { params: { path: { id: connectionId } } })),
    enabled: connectionId !== '',
  });
  const tables = schema.data?.tables ?? [];
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/anonymize/configs', {
          body: {
            project_id: projectId,
            connection_id: connectionId,
            name,
            rules: rulesOf(rules),
          },
        }),
      ),
    onSuccess: (created) => {
      setName('');
      setRules([]);
      queryClient.invalidateQueries({ queryKey: ['anonymize', projectId] });
      onCreated(created.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-label="New anonymization config">
      <div className="inline-form">
        <label>
          Config name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Connection
          <select required value={connectionId} onChange={(e) => setConnectionId(e.target.value)}>
            <option value="">Choose…</option>
            {connections.data?.items.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.environment})
              </option>
            ))}
          </select>
        </label>
      </div>
      <RulesEditor rules={rules} onChange={setRules} tables={tables} disabled={connectionId === ''} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Save config
        </button>
      </div>
      <ErrorText error={schema.error ?? create.error} />
    </form>
  );
}

function ConfigDetail({ config }: { config: Config }) {
  const [runId, setRunId] = useState<string | undefined>();
  const [editing, setEditing] = useState(false);
  const scan = useMutation({
    mutationFn: () =>
      call(api.GET('/api/v1/anonymize/configs/{id}/pii-scan', { params: { path: { id: config.id } } })),
  });
  const preview = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/anonymize/configs/{id}/preview', {
          params: { path: { id: config.id } },
          body: { rows: 5 },
        }),
      ),
  });
  const run = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/anonymize/configs/{id}/run', { params: { path: { id: config.id } } })),
    onSuccess: (started) => setRunId(started.id),
  });
  return (
    <section className="card stack" aria-label={`Config ${config.name}`}>
      <h2>{config.name}</h2>
      <ul className="compact">
        {config.rules.map((r) => (
          <li key={`${r.table}.${r.column}`}>
            {r.table}.{r.column}: {r.transformer}{' '}
            {Object.keys(r.options).length > 0 && <code>{JSON.stringify(r.options)}</code>}
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => scan.mutate()} disabled={scan.isPending}>
          Scan for personal data
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => preview.mutate()}
          disabled={preview.isPending}
        >
          Preview
        </button>
        <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>
          Run anonymization
        </button>
        <button
          type="button"
          className="secondary"
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
        >
          Edit rules
        </button>
      </div>
      {editing && <ConfigRulesForm config={config} onDone={() => setEditing(false)} />}
      <ErrorText error={scan.error ?? preview.error ?? run.error} />
      {scan.data && (
        <ScrollTable label="Personal data found">
          <table className="table" data-testid="pii-scan">
            <thead>
              <tr>
                <th scope="col">Column</th>
                <th scope="col">Looks like</th>
                <th scope="col">Found by</th>
                <th scope="col">Covered by a rule</th>
              </tr>
            </thead>
            <tbody>
              {scan.data.columns.map((c) => (
                <tr key={`${c.table}.${c.column}`} className={c.covered ? '' : 'uncovered'}>
                  <td>
                    {c.table}.{c.column}
                  </td>
                  <td>{c.category.replace(/_/g, ' ')}</td>
                  <td>{c.evidence}</td>
                  <td>{c.covered ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {preview.data?.samples.map((sample) => (
        <RowsTable
          key={`${sample.table}.${sample.column}`}
          caption={`${sample.table}.${sample.column}`}
          rows={sample.before.map((before, i) => ({ before, after: sample.after[i] }))}
        />
      ))}
      {runId && <RunProgress key={runId} runId={runId} />}
    </section>
  );
}
