import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { Status } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { ListTable } from '../components/ListTable.tsx';
import { useConnections } from '../shell/connections.ts';

export function MigrationsPage() {
  const { pid = '' } = useParams();
  const navigate = useNavigate();
  const connections = useConnections(pid);
  const migrations = useQuery({
    queryKey: ['migrations', pid],
    queryFn: () => call(api.GET('/api/v1/projects/{pid}/migrations', { params: { path: { pid } } })),
  });
  const [source, setSource] = useState('');
  const [target, setTarget] = useState('');
  const [backupDrops, setBackupDrops] = useState(false);
  const compare = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/projects/{pid}/migrations/compare', {
          params: { path: { pid } },
          body: {
            source_connection_id: source,
            target_connection_id: target,
            online: false,
            ...(backupDrops && { backup_drops: true }),
          },
        }),
      ),
    onSuccess: (migration) => navigate(`/projects/${pid}/migrations/${migration.id}`),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    compare.mutate();
  };
  const name = (id: string) => connections.data?.items.find((c) => c.id === id)?.name ?? id.slice(0, 8);
  const options = connections.data?.items.map((c) => (
    <option key={c.id} value={c.id}>
      {c.name} ({c.environment})
    </option>
  ));

  return (
    <>
      <h1>Migrations</h1>
      <form onSubmit={submit} className="card inline-form" aria-label="Compare schemas">
        <label>
          Source (the reference)
          <select required value={source} onChange={(e) => setSource(e.target.value)}>
            <option value="">Choose…</option>
            {options}
          </select>
        </label>
        <label>
          Target (to change)
          <select required value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">Choose…</option>
            {options}
          </select>
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={backupDrops} onChange={(e) => setBackupDrops(e.target.checked)} />
          Back up dropped tables and columns (the rollback restores their data)
        </label>
        <button type="submit" disabled={compare.isPending}>
          {compare.isPending ? 'Comparing…' : 'Compare'}
        </button>
        <ErrorText error={compare.error} />
      </form>
      <ListTable
        query={migrations}
        label="Migrations"
        empty="No migrations yet: compare two connections above."
        columns={['Created', 'Source → target', 'Statements', 'Warnings', 'Status']}
        row={(m) => (
          <tr key={m.id}>
            <td>
              <Link to={`/projects/${pid}/migrations/${m.id}`}>
                {new Date(m.created_at).toLocaleString()}
              </Link>
            </td>
            <td className="break">
              {name(m.source_connection_id)} → {name(m.target_connection_id)}
            </td>
            <td>{m.statements.length}</td>
            <td>{m.lint_warnings.length}</td>
            <td>
              <Status value={m.status} />
            </td>
          </tr>
        )}
      />
    </>
  );
}
