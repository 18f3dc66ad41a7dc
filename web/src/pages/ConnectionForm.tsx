import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, api, call } from '../api/client.ts';
import type { Connection } from '../api/types.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { changedFields, fieldError, initialForm, movedFields } from '../lib/connection-form.ts';
import { detailText } from '../lib/errors.ts';

type Dialect = Connection['dialect'];
type Environment = Connection['environment'];
type SslMode = Connection['ssl_mode'];

const DEFAULT_PORT: Record<Dialect, number> = { postgresql: 5432, mysql: 3306 };

/** A refusal about the password field (422 on `body.password`), shown at the field itself. */
class PasswordError extends ApiError {}

const listed = (items: string[]) =>
  items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * A connection: where it is, how to sign in, its environment and whether it is protected. Without
 * `connection` it creates one; with it, it edits that one (the engine of a connection is fixed).
 */
export function ConnectionForm({
  projectId,
  connection,
  onDone,
}: {
  projectId: string;
  connection?: Connection;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(() => initialForm(connection));
  const set = <K extends keyof typeof form>(key: K, value: (typeof form)[K]) =>
    setForm({ ...form, [key]: value });

  // Moving a saved connection to another server needs its password again (the API refuses it).
  const moved = connection ? movedFields(connection, form) : [];
  const needsPassword = moved.length > 0;

  const save = useMutation({
    mutationFn: async () => {
      if (!connection)
        return call(api.POST('/api/v1/connections', { body: { ...form, project_id: projectId } }));
      const { data, error, response } = await api.PATCH('/api/v1/connections/{id}', {
        params: { path: { id: connection.id } },
        body: changedFields(connection, form),
      });
      if (response.ok) return data;
      const onPassword = response.status === 422 ? fieldError(error, 'password') : undefined;
      if (onPassword) throw new PasswordError(422, onPassword);
      throw new ApiError(response.status, detailText(error, response.status));
    },
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['connections', projectId] });
      onDone();
    },
  });
  const passwordError = save.error instanceof PasswordError ? save.error : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form
      onSubmit={submit}
      className="card grid-form"
      aria-label={connection ? `Edit connection ${connection.name}` : 'New connection'}
    >
      <label>
        Name
        <input required value={form.name} onChange={(e) => set('name', e.target.value)} />
      </label>
      <label>
        Engine
        <select
          value={form.dialect}
          disabled={connection !== undefined}
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
          // Its name stays "Password": the hint below is its description, not part of its name.
          aria-label="Password"
          aria-invalid={passwordError ? true : undefined}
          aria-describedby={needsPassword || passwordError ? 'connection-password-help' : undefined}
          placeholder={
            connection ? (needsPassword ? 'required: the connection moves' : 'unchanged') : undefined
          }
          value={form.password}
          onChange={(e) => {
            set('password', e.target.value);
            if (passwordError) save.reset();
          }}
        />
        {passwordError ? (
          <span id="connection-password-help" className="error" role="alert">
            {passwordError.message}
          </span>
        ) : needsPassword ? (
          <span id="connection-password-help" className="muted">
            Changing the {listed(moved)} moves the connection to another server: type its password again. A
            saved password is only ever sent to the server it was given for.
          </span>
        ) : null}
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
            // Production protects by default; leaving production keeps the flag as it is.
            const protect = environment === 'production' || (connection !== undefined && form.protected);
            setForm({ ...form, environment, protected: protect });
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
        {connection?.protected && !form.protected ? (
          <span className="muted"> Turning protection off is for organization owners and admins.</span>
        ) : null}
      </label>
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {connection ? 'Save changes' : 'Save connection'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      {passwordError ? null : <ErrorText error={save.error} />}
    </form>
  );
}
