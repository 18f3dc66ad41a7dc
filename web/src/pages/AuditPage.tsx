// The organization's audit log with filters (action, project, time range) and paging.
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { QueryState } from '../components/States.tsx';
import { useProjects } from '../shell/projects.ts';

interface Filters {
  action: string;
  project_id: string;
  from: string;
  to: string;
}

const EMPTY: Filters = { action: '', project_id: '', from: '', to: '' };
/** `<input type="datetime-local">` gives local time without an offset; the API wants one. */
const asIso = (local: string) =>
  local ? new Date(local).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;

export function AuditPage() {
  const projects = useProjects();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const audit = useQuery({
    queryKey: ['audit', filters, page],
    queryFn: () =>
      call(
        api.GET('/api/v1/audit', {
          params: {
            query: {
              page,
              page_size: 50,
              ...(filters.action && { action: filters.action }),
              ...(filters.project_id && { project_id: filters.project_id }),
              ...(filters.from && { from: asIso(filters.from) }),
              ...(filters.to && { to: asIso(filters.to) }),
            },
          },
        }),
      ),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setFilters(draft);
  };
  const pages = audit.data ? Math.max(1, Math.ceil(audit.data.total / audit.data.page_size)) : 1;
  return (
    <>
      <h1>Audit log</h1>
      <form className="card inline-form" onSubmit={submit} aria-label="Filter the audit log">
        <label>
          Action
          <input
            value={draft.action}
            placeholder="e.g. patch.execute"
            onChange={(e) => setDraft({ ...draft, action: e.target.value })}
          />
        </label>
        <label>
          Project
          <select
            value={draft.project_id}
            onChange={(e) => setDraft({ ...draft, project_id: e.target.value })}
          >
            <option value="">Any</option>
            {projects.data?.items.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input
            type="datetime-local"
            value={draft.from}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </label>
        <label>
          To
          <input
            type="datetime-local"
            value={draft.to}
            onChange={(e) => setDraft({ ...draft, to: e.target.value })}
          />
        </label>
        <button type="submit">Filter</button>
      </form>
      <QueryState
        isLoading={audit.isLoading}
        error={audit.error}
        onRetry={() => void audit.refetch()}
        retrying={audit.isFetching}
        isEmpty={audit.data?.items.length === 0}
        empty="No entries match."
      >
        <ScrollTable label="Audit entries">
          <table className="table" data-testid="audit-entries">
            <thead>
              <tr>
                <th scope="col" className="hide-narrow">
                  #
                </th>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col" className="hide-narrow">
                  Target
                </th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {audit.data?.items.map((entry) => (
                <tr key={entry.id}>
                  <td className="hide-narrow">{entry.seq}</td>
                  <td>{new Date(entry.created_at).toLocaleString()}</td>
                  <td className="break">{entry.actor_label ?? entry.actor_type}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td className="hide-narrow break">{entry.target_label ?? entry.target_type ?? ''}</td>
                  <td>
                    <span className={`status status-${entry.outcome === 'success' ? 'succeeded' : 'failed'}`}>
                      {entry.outcome}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
        <div className="actions">
          <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button
            type="button"
            className="secondary"
            disabled={page >= pages}
            onClick={() => setPage(page + 1)}
          >
            Older
          </button>
        </div>
      </QueryState>
    </>
  );
}
