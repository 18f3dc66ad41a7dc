// Anonymization: configs per connection with rules picked from the live schema (table, column,
// transformer and its options), the PII scan (what looks personal and whether a rule covers it),
// a preview of values before and after, and the run in place with its progress.
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
import { ScrollTable } from '../components/ScrollTable.tsx';
import { countOf } from '../lib/plural.ts';
import { useLiveSchema } from '../shell/connections.ts';
import { ConfigRulesForm, type RuleDraft, RulesEditor, rulesOf } from './AnonymizeRules.tsx';

type Config = components['schemas']['AnonymizeConfig'];

export function AnonymizePage() {
  const { pid = '' } = useParams();
  const queryClient = useQueryClient();
  const configs = useQuery({
    queryKey: ['anonymize', pid],
    queryFn: () => call(api.GET('/api/v1/anonymize/configs', { params: { query: { project_id: pid } } })),
  });
  return (
    <ConfigList
      title="Anonymization"
      list={configs}
      empty="No configs yet."
      newForm={(onCreated) => <NewConfig projectId={pid} onCreated={onCreated} />}
      summary={(c) => countOf(c.rules.length, 'rule')}
      detail={(c) => <ConfigDetail config={c} />}
      deletion={{
        noun: 'anonymization config',
        consequences: (c) => (
          <p>
            Its {countOf(c.rules.length, 'rule')} go with it. Data it already anonymized stays as it is, and
            its runs stay in the project's runs.
          </p>
        ),
        remove: (c) => call(api.DELETE('/api/v1/anonymize/configs/{id}', { params: { path: { id: c.id } } })),
        onDeleted: () => queryClient.invalidateQueries({ queryKey: ['anonymize', pid] }),
      }}
    />
  );
}

function NewConfig({ projectId, onCreated }: { projectId: string; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [rules, setRules] = useState<RuleDraft[]>([]);
  const schema = useLiveSchema(connectionId);
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
  return (
    <NewConfigForm
      label="New anonymization config"
      projectId={projectId}
      nameLabel="Config name"
      name={name}
      onNameChange={setName}
      connectionId={connectionId}
      onConnectionChange={setConnectionId}
      submitLabel="Save config"
      submitDisabled={create.isPending}
      error={schema.error ?? create.error}
      onSubmit={() => create.mutate()}
    >
      <RulesEditor rules={rules} onChange={setRules} tables={tables} disabled={connectionId === ''} />
    </NewConfigForm>
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
