// A project's webhooks: create (the signing secret shown once), send a test event, the delivery log
// with redeliver, and remove.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema';
import { Status } from '../components/Badge.tsx';
import { DeleteAction } from '../components/DeleteAction.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { SecretOnce } from '../components/SecretOnce.tsx';
import { QueryState } from '../components/States.tsx';

type Webhook = components['schemas']['Webhook'];
type EventType = components['schemas']['CreateWebhookRequest']['events'][number];

const EVENTS: EventType[] = [
  '*',
  'patch.executed',
  'patch.failed',
  'migration.applied',
  'migration.failed',
  'drift.detected',
  'approval.requested',
  'approval.decided',
  'run.failed',
];

const listWebhooks = (pid: string) =>
  call(api.GET('/api/v1/projects/{pid}/webhooks', { params: { path: { pid } } }));
const createWebhook = (pid: string, body: { url: string; events: EventType[]; active: boolean }) =>
  call(api.POST('/api/v1/projects/{pid}/webhooks', { params: { path: { pid } }, body }));

export function WebhooksPage() {
  const { pid = '' } = useParams();
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: ['webhooks', pid], queryFn: () => listWebhooks(pid) });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['*']);
  const [secret, setSecret] = useState<string | undefined>();
  const create = useMutation({
    mutationFn: () => createWebhook(pid, { url, events, active: true }),
    onSuccess: (created) => {
      setSecret(created.secret);
      setUrl('');
      queryClient.invalidateQueries({ queryKey: ['webhooks', pid] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <h1>Webhooks</h1>
      <form className="card stack" onSubmit={submit} aria-label="New webhook">
        <label>
          Endpoint URL
          <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((type) => (
            <label key={type} className="checkbox">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents(e.target.checked ? [...events, type] : events.filter((t) => t !== type))
                }
              />
              {type === '*' ? 'all events' : type}
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="submit" disabled={create.isPending || events.length === 0}>
            Add webhook
          </button>
        </div>
        <ErrorText error={create.error} />
      </form>
      {secret && (
        <SecretOnce
          key={secret}
          label="Signing secret"
          secret={secret}
          testId="webhook-secret"
          onHide={() => setSecret(undefined)}
        >
          The signing secret is shown only now (Standard Webhooks, header webhook-signature):
        </SecretOnce>
      )}
      <QueryState
        isLoading={webhooks.isLoading}
        error={webhooks.error}
        onRetry={() => void webhooks.refetch()}
        retrying={webhooks.isFetching}
        isEmpty={webhooks.data?.items.length === 0}
        empty="No webhooks."
      >
        <ul className="list">
          {webhooks.data?.items.map((webhook) => (
            <WebhookItem key={webhook.id} webhook={webhook} />
          ))}
        </ul>
      </QueryState>
    </>
  );
}

function WebhookItem({ webhook }: { webhook: Webhook }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const deliveries = useQuery({
    queryKey: ['deliveries', webhook.id],
    queryFn: () =>
      call(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: webhook.id } } })),
    enabled: open,
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.status === 'pending') ? 1_500 : false),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['deliveries', webhook.id] });
  const test = useMutation({
    mutationFn: () => call(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: webhook.id } } })),
    onSuccess: () => {
      setOpen(true);
      refresh();
    },
  });
  const redeliver = useMutation({
    mutationFn: (did: string) =>
      call(
        api.POST('/api/v1/webhooks/{id}/deliveries/{did}/redeliver', {
          params: { path: { id: webhook.id, did } },
        }),
      ),
    onSuccess: refresh,
  });
  return (
    <li className="card" data-testid="webhook">
      <div className="row">
        <strong>{webhook.url}</strong>
        <span className="muted">{webhook.events.join(', ')}</span>
        {!webhook.active && <Status value="disabled" />}
        {webhook.disabled_reason && <span className="error">{webhook.disabled_reason}</span>}
        <span className="spacer" />
        <button type="button" className="secondary" onClick={() => test.mutate()} disabled={test.isPending}>
          Send test event
        </button>
        <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          Deliveries
        </button>
        <DeleteAction
          noun="webhook"
          name={webhook.url}
          consequences={
            <p>
              Its deliveries and their log go with it, and no event of this project is sent there any more.
              The audit log keeps its entries.
            </p>
          }
          remove={() => call(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: webhook.id } } }))}
          onDeleted={() => queryClient.invalidateQueries({ queryKey: ['webhooks', webhook.project_id] })}
        />
      </div>
      <ErrorText error={test.error ?? redeliver.error} />
      {open && (
        <QueryState
          isLoading={deliveries.isLoading}
          error={deliveries.error}
          onRetry={() => void deliveries.refetch()}
          retrying={deliveries.isFetching}
          isEmpty={deliveries.data?.items.length === 0}
          empty="No deliveries yet."
        >
          <ScrollTable label="Deliveries">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data?.items.map((d) => (
                  <tr key={d.id}>
                    <td>{d.event_type}</td>
                    <td>
                      <Status value={d.status === 'succeeded' ? 'succeeded' : d.status} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
                    <td>
                      <button type="button" className="link" onClick={() => redeliver.mutate(d.id)}>
                        Redeliver
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        </QueryState>
      )}
    </li>
  );
}
