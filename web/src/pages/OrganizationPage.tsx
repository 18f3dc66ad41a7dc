// Organization admin: users and their roles (add, change the role, deactivate), the plan and this
// month's usage, audit export sinks, and SCIM provisioning.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import type { User } from '../api/types.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { QueryState } from '../components/States.tsx';
import { AuditSinksSection } from './AuditSinksSection.tsx';
import { ScimSection } from './ScimSection.tsx';

type OrgRole = User['org_role'];

export function OrganizationPage() {
  const queryClient = useQueryClient();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: () => call(api.GET('/api/v1/users', { params: { query: { page_size: 200 } } })),
  });
  const subscription = useQuery({
    queryKey: ['subscription'],
    queryFn: () => call(api.GET('/api/v1/billing/subscription')),
  });
  const usage = useQuery({ queryKey: ['usage'], queryFn: () => call(api.GET('/api/v1/billing/usage')) });
  const [form, setForm] = useState({ email: '', name: '', password: '', org_role: 'member' as OrgRole });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['users'] });
  const create = useMutation({
    mutationFn: () => call(api.POST('/api/v1/users', { body: form })),
    onSuccess: () => {
      setForm({ email: '', name: '', password: '', org_role: 'member' });
      refresh();
    },
  });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: string; body: { org_role?: OrgRole; active?: boolean } }) =>
      call(api.PATCH('/api/v1/users/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <h1>Organization</h1>
      <section className="card" aria-label="Plan and usage">
        <h2>Plan and usage</h2>
        <QueryState
          isLoading={subscription.isLoading || usage.isLoading}
          error={subscription.error ?? usage.error}
        >
          <p data-testid="plan">
            Plan <strong>{subscription.data?.plan}</strong> ({subscription.data?.status})
          </p>
          {usage.data && (
            <p className="muted">
              {usage.data.period}: {usage.data.api_requests} API requests ·{' '}
              {Object.values(usage.data.runs).reduce((a, b) => a + b, 0)} runs · {usage.data.rows.patched}{' '}
              rows patched · {usage.data.rows.copied} copied · {usage.data.drift_checks} drift checks
            </p>
          )}
        </QueryState>
      </section>
      <form className="card grid-form" onSubmit={submit} aria-label="New user">
        <label>
          E-mail
          <input
            type="email"
            required
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        </label>
        <label>
          Name
          <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </label>
        <label>
          Initial password
          <input
            type="password"
            autoComplete="new-password"
            required
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </label>
        <label>
          Role
          <select
            value={form.org_role}
            onChange={(e) => setForm({ ...form, org_role: e.target.value as OrgRole })}
          >
            <option value="member">member</option>
            <option value="admin">admin</option>
            <option value="owner">owner</option>
          </select>
        </label>
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Add user
          </button>
        </div>
        <ErrorText error={create.error} />
      </form>
      <QueryState
        isLoading={users.isLoading}
        error={users.error}
        onRetry={() => void users.refetch()}
        retrying={users.isFetching}
      >
        <ScrollTable label="Users">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">2FA</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {users.data?.items.map((user) => (
                <tr key={user.id} data-testid={`user-${user.email}`}>
                  <td>{user.name}</td>
                  <td>{user.email}</td>
                  <td>
                    <select
                      aria-label={`Role of ${user.name}`}
                      value={user.org_role}
                      onChange={(e) =>
                        update.mutate({ id: user.id, body: { org_role: e.target.value as OrgRole } })
                      }
                    >
                      <option value="member">member</option>
                      <option value="admin">admin</option>
                      <option value="owner">owner</option>
                    </select>
                  </td>
                  <td>{user.two_factor_enabled ? 'on' : 'off'}</td>
                  <td>
                    <button
                      type="button"
                      className={`link${user.active ? ' danger' : ''}`}
                      onClick={() => update.mutate({ id: user.id, body: { active: !user.active } })}
                    >
                      {user.active ? `Deactivate ${user.name}` : `Reactivate ${user.name}`}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </QueryState>
      <ErrorText error={update.error} />
      <AuditSinksSection />
      <ScimSection />
    </>
  );
}
