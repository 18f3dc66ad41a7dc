// API keys: create with scopes, the secret shown once with a copy button, revoke.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import type { CreatedApiKey, Scope } from '../api/types.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { ListTable } from '../components/ListTable.tsx';
import { SecretOnce } from '../components/SecretOnce.tsx';

const SCOPES: Scope[] = ['read', 'write', 'admin'];

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => call(api.GET('/api/v1/api-keys')) });
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [created, setCreated] = useState<CreatedApiKey | undefined>();

  const create = useMutation({
    mutationFn: () => call(api.POST('/api/v1/api-keys', { body: { name, scopes } })),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => call(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <>
      <h1>API keys</h1>
      <form onSubmit={submit} className="card inline-form" aria-label="New API key">
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="checkbox">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) =>
                  setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))
                }
              />
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || scopes.length === 0}>
          Create key
        </button>
        <ErrorText error={create.error} />
      </form>
      {created && (
        <SecretOnce
          key={created.secret}
          label="New key secret"
          secret={created.secret}
          testId="api-key-secret"
          onHide={() => setCreated(undefined)}
        >
          The secret of <strong>{created.name}</strong> is shown only now. Copy it to a safe place.
        </SecretOnce>
      )}
      <ListTable
        query={keys}
        label="API keys"
        empty="No API keys."
        columns={['Name', 'Prefix', 'Scopes', 'Last used', 'State']}
        row={(key) => (
          <tr key={key.id}>
            <td>{key.name}</td>
            <td>
              <code>ak_{key.prefix}_…</code>
            </td>
            <td>{key.scopes.join(', ')}</td>
            <td>{key.last_used_at ? new Date(key.last_used_at).toLocaleString() : 'never'}</td>
            <td>
              {key.revoked_at ? (
                'revoked'
              ) : (
                <button type="button" className="link danger" onClick={() => revoke.mutate(key.id)}>
                  Revoke {key.name}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      <ErrorText error={revoke.error} />
    </>
  );
}
