import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import { CountBadge } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { useProjects } from '../shell/projects.ts';

export function HomePage() {
  const projects = useProjects();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => call(api.POST('/api/v1/projects', { body: { name } })),
    onSuccess: () => {
      setName('');
      queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <h1>Projects</h1>
      <QueryState
        isLoading={projects.isLoading}
        error={projects.error}
        isEmpty={projects.data?.items.length === 0}
        empty="No projects yet: create the first one below."
      >
        <ul className="cards">
          {projects.data?.items.map((p) => (
            <li key={p.id} className="card">
              <Link to={`/projects/${p.id}/connections`}>{p.name}</Link>
              {p.description && <p className="muted">{p.description}</p>}
              <p>
                <CountBadge count={p.open_drift_reports} label="open drift reports" />{' '}
                <CountBadge count={p.pending_approvals} label="pending approvals" />
              </p>
            </li>
          ))}
        </ul>
      </QueryState>
      <form onSubmit={submit} className="inline-form" aria-label="New project">
        <label>
          New project name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create project
        </button>
        <ErrorText error={create.error} />
      </form>
    </>
  );
}
