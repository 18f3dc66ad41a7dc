// A project's members: add a user of the organization with a role, change a member's role, remove
// a member. Project admins only; the API's answer (403, or 409 for the last admin) shows as its detail.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema.d.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { QueryState } from '../components/States.tsx';

type ProjectRole = components['schemas']['ProjectMember']['role'];
const ROLES: ProjectRole[] = ['viewer', 'developer', 'admin'];

export function MembersPage() {
  const { pid = '' } = useParams();
  const queryClient = useQueryClient();
  const members = useQuery({
    queryKey: ['members', pid],
    queryFn: () =>
      call(
        api.GET('/api/v1/projects/{pid}/members', {
          params: { path: { pid }, query: { page_size: 200 } },
        }),
      ),
  });
  // The people who could join: the organization's active users who are not members yet.
  const users = useQuery({
    queryKey: ['users'],
    queryFn: () => call(api.GET('/api/v1/users', { params: { query: { page_size: 200 } } })),
  });
  const memberIds = new Set(members.data?.items.map((m) => m.user_id));
  const candidates = users.data?.items.filter((u) => u.active && !memberIds.has(u.id)) ?? [];
  const [form, setForm] = useState({ user_id: '', role: 'developer' as ProjectRole });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['members', pid] });
  const add = useMutation({
    mutationFn: () =>
      call(api.POST('/api/v1/projects/{pid}/members', { params: { path: { pid } }, body: form })),
    onSuccess: () => {
      setForm({ user_id: '', role: 'developer' });
      refresh();
    },
  });
  const change = useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: ProjectRole }) =>
      call(
        api.PATCH('/api/v1/projects/{pid}/members/{user_id}', {
          params: { path: { pid, user_id: userId } },
          body: { role },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (userId: string) =>
      call(
        api.DELETE('/api/v1/projects/{pid}/members/{user_id}', {
          params: { path: { pid, user_id: userId } },
        }),
      ),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <>
      <h1>Members</h1>
      <form className="card inline-form" onSubmit={submit} aria-label="Add member">
        <label>
          User
          <select
            required
            value={form.user_id}
            onChange={(e) => setForm({ ...form, user_id: e.target.value })}
          >
            <option value="">Choose a user…</option>
            {candidates.map((user) => (
              <option key={user.id} value={user.id}>
                {user.name} ({user.email})
              </option>
            ))}
          </select>
        </label>
        <label>
          Role
          <select
            value={form.role}
            onChange={(e) => setForm({ ...form, role: e.target.value as ProjectRole })}
          >
            {ROLES.map((role) => (
              <option key={role}>{role}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={add.isPending}>
          Add member
        </button>
        <ErrorText error={add.error ?? users.error} />
      </form>
      <QueryState
        isLoading={members.isLoading}
        error={members.error}
        onRetry={() => void members.refetch()}
        retrying={members.isFetching}
      >
        <ScrollTable label="Members">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data?.items.map((member) => (
                <tr key={member.user_id} data-testid={`member-${member.email}`}>
                  <td>{member.name}</td>
                  <td>{member.email}</td>
                  <td>
                    <select
                      aria-label={`Project role of ${member.name}`}
                      value={member.role}
                      onChange={(e) =>
                        change.mutate({ userId: member.user_id, role: e.target.value as ProjectRole })
                      }
                    >
                      {ROLES.map((role) => (
                        <option key={role}>{role}</option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="link danger"
                      onClick={() => remove.mutate(member.user_id)}
                    >
                      Remove {member.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </QueryState>
      <ErrorText error={change.error ?? remove.error} />
    </>
  );
}
