import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import type { Connection } from '../api/types.ts';
import { ErrorText } from '../components/ErrorText.tsx';

type Dialect = Connection['dialect'];
type Environment = Connection['environment'];
type SslMode = Connection['ssl_mode'];

const DEFAULT_PORT: Record<Dialect, number> = { postgresql: 5432, mysql: 3306 };

/** A new connection: where it is, how to sign in, its environment and whether it is protected. */
export function ConnectionForm({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({
    name: '',
    dialect: 'postgresql' as Dialect,
    host: '127.0.0.1',
    port: 5432,
    database: '',
    username: '',
    password: '',
    ssl_mode: 'disable' as SslMode,
    environment: 'development' as Environment,
    protected: false,
  });
  const set = <K extends keyof typeof form>(key: K, value: (typeof form)[K]) =>
    setForm({ ...form, [key]: value });

  const create = useMutation({
    mutationFn: () => call(api.POST('/api/v1/connections', { body: { ...form, project_id: projectId } })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['connections', projectId] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <form onSubmit={submit} className="card grid-form" aria-label="New connection">
      <label>
        Name
        <input required value={form.name} onChange={(e) => set('name', e.target.value)} />
      </label>
      <label>
        Engine
        <select
          value={form.dialect}
          onChange={(e) => {
            const dialect = e.target.value as Dialect;
            setForm({ ...form, dialect, port: DEFAULT_PORT[dialect] });
          }}
        >
          <option value="postgresql">PostgreSQL</option>
          <option value="mysql">MySQL / MariaDB</option>
        </select>
      </label>
      <label>
        Host
        <input required value={form.host} onChange={(e) => set('host', e.target.value)} />
      </label>
      <label>
        Port
        <input
          type="number"
          required
          min={1}
          max={65535}
          value={form.port}
          onChange={(e) => set('port', Number(e.target.value))}
        />
      </label>
      <label>
        Database
        <input required value={form.database} onChange={(e) => set('database', e.target.value)} />
      </label>
      <label>
        User name
        <input required value={form.username} onChange={(e) => set('username', e.target.value)} />
      </label>
      <label>
        Password
        <input
          type="password"
          autoComplete="new-password"
          value={form.password}
          onChange={(e) => set('password', e.target.value)}
        />
      </label>
      <label>
        TLS
        <select value={form.ssl_mode} onChange={(e) => set('ssl_mode', e.target.value as SslMode)}>
          <option value="disable">disable</option>
          <option value="require">require</option>
          <option value="verify-full">verify-full</option>
        </select>
      </label>
      <label>
        Environment
        <select
          value={form.environment}
          onChange={(e) => {
            const environment = e.target.value as Environment;
            setForm({ ...form, environment, protected: environment === 'production' });
          }}
        >
          <option value="development">development</option>
          <option value="staging">staging</option>
          <option value="production">production</option>
        </select>
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.protected}
          onChange={(e) => set('protected', e.target.checked)}
        />
        Protected (every write needs another person's approval)
      </label>
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Save connection
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorText error={create.error} />
    </form>
  );
}
