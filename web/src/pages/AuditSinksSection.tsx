// Audit export sinks of the organization: add one (an http sink's signing secret is shown once),
// see how far each has got (lag, last error) and send it a test entry.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema.d.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { SecretOnce } from '../components/SecretOnce.tsx';
import { QueryState } from '../components/States.tsx';

type AuditSink = components['schemas']['AuditSink'];
type SinkType = AuditSink['type'];

export function AuditSinksSection() {
  const queryClient = useQueryClient();
  const sinks = useQuery({
    queryKey: ['audit-sinks'],
    queryFn: () =>
      call(api.GET('/api/v1/admin/audit-export/sinks', { params: { query: { page_size: 100 } } })),
  });
  const [form, setForm] = useState({ type: 'http' as SinkType, url: '', token: '' });
  const [secret, setSecret] = useState<string>();
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/admin/audit-export/sinks', {
          body: {
            type: form.type,
            url: form.url,
            active: true,
            ...(form.token ? { token: form.token } : {}),
          },
        }),
      ),
    onSuccess: (sink) => {
      setSecret(sink.secret ?? undefined);
      setForm({ type: 'http', url: '', token: '' });
      queryClient.invalidateQueries({ queryKey: ['audit-sinks'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-label="Audit export">
      <h2>Audit export</h2>
      <form className="grid-form" onSubmit={submit} aria-label="New audit sink">
        <label>
          Receiver
          <select value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value as SinkType })}>
            <option value="http">HTTP (signed)</option>
            <option value="splunk_hec">Splunk HEC</option>
            <option value="datadog">Datadog logs</option>
          </select>
        </label>
        <label>
          Sink URL
          <input
            type="url"
            required
            value={form.url}
            onChange={(e) => setForm({ ...form, url: e.target.value })}
          />
        </label>
        {form.type !== 'http' && (
          <label>
            Token
            <input
              type="password"
              autoComplete="off"
              required
              value={form.token}
              onChange={(e) => setForm({ ...form, token: e.target.value })}
            />
          </label>
        )}
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Add sink
          </button>
        </div>
        <ErrorText error={create.error} />
      </form>
      {secret && (
        <SecretOnce
          key={secret}
          label="Sink signing secret"
          secret={secret}
          testId="sink-secret"
          onHide={() => setSecret(undefined)}
        >
          The signing secret is shown only now:
        </SecretOnce>
      )}
      <QueryState
        isLoading={sinks.isLoading}
        error={sinks.error}
        onRetry={() => void sinks.refetch()}
        retrying={sinks.isFetching}
        isEmpty={sinks.data?.items.length === 0}
        empty="The audit log is not exported."
      >
        <ul className="list">
          {sinks.data?.items.map((sink) => (
            <SinkRow key={sink.id} sink={sink} />
          ))}
        </ul>
      </QueryState>
    </section>
  );
}

function SinkRow({ sink }: { sink: AuditSink }) {
  const test = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/admin/audit-export/sinks/{id}/test', { params: { path: { id: sink.id } } })),
  });
  const result = test.data;
  return (
    <li data-testid="audit-sink">
      <div className="row">
        <strong>{sink.type}</strong>
        <span className="muted break">{sink.url}</span>
        <span data-testid="sink-lag">lag {sink.lag}</span>
        {!sink.active && <span className="tag">paused</span>}
        <span className="spacer" />
        <button type="button" className="secondary" onClick={() => test.mutate()} disabled={test.isPending}>
          Test sink
        </button>
      </div>
      {sink.last_error && (
        <p className="error">
          Last error{sink.last_error_at ? ` (${new Date(sink.last_error_at).toLocaleString()})` : ''}:{' '}
          {sink.last_error}
        </p>
      )}
      {result &&
        (result.ok ? (
          <p className="ok" role="status">
            Accepted (HTTP {result.status_code})
          </p>
        ) : (
          <p className="error" role="alert">
            Refused{result.status_code ? ` (HTTP ${result.status_code})` : ''}: {result.error}
          </p>
        ))}
      <ErrorText error={test.error} />
    </li>
  );
}
