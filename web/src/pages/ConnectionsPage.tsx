import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Connection } from '../api/types.ts';
import { Status } from '../components/Badge.tsx';
import { DeleteAction } from '../components/DeleteAction.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { useConnections } from '../shell/connections.ts';
import { ConnectionForm } from './ConnectionForm.tsx';
import { SchemaBrowser } from './SchemaBrowser.tsx';

export function ConnectionsPage() {
  const { pid = '' } = useParams();
  const connections = useConnections(pid);
  const [adding, setAdding] = useState(false);
  return (
    <>
      <div className="page-head">
        <h1>Connections</h1>
        {!adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add connection
          </button>
        )}
      </div>
      {adding && <ConnectionForm projectId={pid} onDone={() => setAdding(false)} />}
      <QueryState
        isLoading={connections.isLoading}
        error={connections.error}
        onRetry={() => void connections.refetch()}
        retrying={connections.isFetching}
        isEmpty={connections.data?.items.length === 0}
        empty="No connections yet."
      >
        <ul className="list">
          {connections.data?.items.map((connection) => (
            <ConnectionRow key={connection.id} connection={connection} />
          ))}
        </ul>
      </QueryState>
    </>
  );
}

function ConnectionRow({ connection }: { connection: Connection }) {
  const queryClient = useQueryClient();
  const [showSchema, setShowSchema] = useState(false);
  const [editing, setEditing] = useState(false);
  const test = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/connections/{id}/test', { params: { path: { id: connection.id } } })),
  });
  const result = test.data;
  return (
    <li className="card" data-testid={`connection-${connection.name}`}>
      <div className="row">
        <strong>{connection.name}</strong>
        <span className="muted">
          {connection.dialect} · {connection.host}:{connection.port}/{connection.database}
        </span>
        <span className={`env env-${connection.environment}`}>{connection.environment}</span>
        {connection.protected && <span className="tag">protected</span>}
        {connection.drift_status === 'pending' && <Status value="drift pending" />}
        <span className="spacer" />
        <button type="button" className="secondary" onClick={() => test.mutate()} disabled={test.isPending}>
          Test
        </button>
        <button
          type="button"
          className="secondary"
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
        >
          Edit
        </button>
        <button
          type="button"
          className="secondary"
          aria-expanded={showSchema}
          onClick={() => setShowSchema(!showSchema)}
        >
          Schema
        </button>
        <DeleteAction
          noun="connection"
          name={connection.name}
          consequences={
            <p>
              Its snapshots, drift reports, migrations, patches, seed scenarios and anonymization configs go
              with it, and the backup tables its patches left in the database are dropped. Nothing else in the
              database {connection.database} is touched.
            </p>
          }
          remove={() =>
            call(api.DELETE('/api/v1/connections/{id}', { params: { path: { id: connection.id } } }))
          }
          onDeleted={() => {
            queryClient.invalidateQueries({ queryKey: ['connections', connection.project_id] });
            queryClient.removeQueries({ queryKey: ['schema', connection.id] });
            queryClient.removeQueries({ queryKey: ['drift', connection.id] });
          }}
        />
      </div>
      {result &&
        (result.ok ? (
          <p className="ok" role="status">
            Connected in {result.latency_ms} ms · {result.server_version}
          </p>
        ) : (
          // The message starts with the cause in words ("Authentication failed: …").
          <p className="error" role="alert">
            {result.error?.message}
          </p>
        ))}
      <ErrorText error={test.error} />
      {editing && (
        <ConnectionForm
          projectId={connection.project_id}
          connection={connection}
          onDone={() => setEditing(false)}
        />
      )}
      {showSchema && <SchemaBrowser connectionId={connection.id} />}
    </li>
  );
}
