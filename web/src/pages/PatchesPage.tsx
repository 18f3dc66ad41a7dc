import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { Status } from '../components/Badge.tsx';
import { ConnectionSelect } from '../components/ConnectionSelect.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { ListTable } from '../components/ListTable.tsx';
import { SqlEditor } from '../components/SqlEditor.tsx';
import { useConnections } from '../shell/connections.ts';

export function PatchesPage() {
  const { pid = '' } = useParams();
  const navigate = useNavigate();
  const connections = useConnections(pid);
  const patches = useQuery({
    queryKey: ['patches', pid],
    queryFn: () => call(api.GET('/api/v1/patches', { params: { query: { project_id: pid } } })),
  });
  const [title, setTitle] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [sql, setSql] = useState('');
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/patches', { body: { project_id: pid, connection_id: connectionId, title, sql } }),
      ),
    onSuccess: (patch) => navigate(`/projects/${pid}/patches/${patch.id}`),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const name = (id: string) => connections.data?.items.find((c) => c.id === id)?.name ?? '';
  return (
    <>
      <h1>Patches</h1>
      <form onSubmit={submit} className="card stack" aria-label="New patch">
        <div className="inline-form">
          <label>
            Title
            <input required value={title} onChange={(e) => setTitle(e.target.value)} />
          </label>
          <ConnectionSelect projectId={pid} value={connectionId} onChange={setConnectionId} />
        </div>
        <SqlEditor label="Patch SQL" value={sql} onChange={setSql} />
        <div className="actions">
          <button type="submit" disabled={create.isPending || sql.trim() === ''}>
            Create patch
          </button>
        </div>
        <ErrorText error={create.error} />
      </form>
      <ListTable
        query={patches}
        label="Patches"
        empty="No patches yet."
        columns={['Title', 'Connection', 'Status']}
        row={(p) => (
          <tr key={p.id}>
            <td className="break">
              <Link to={`/projects/${pid}/patches/${p.id}`}>{p.title}</Link>
            </td>
            <td className="break">{name(p.connection_id)}</td>
            <td>
              <Status value={p.status} />
            </td>
          </tr>
        )}
      />
    </>
  );
}
