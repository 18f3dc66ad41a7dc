// SCIM provisioning: the base URL for the identity provider, the token (shown once; a new one
// replaces the old at once) and the group mappings from identity-provider groups to roles.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema.d.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { GroupMappingsEditor } from './GroupMappingsEditor.tsx';

type ScimConfig = components['schemas']['ScimConfig'];

export function ScimSection() {
  const scim = useQuery({ queryKey: ['scim'], queryFn: () => call(api.GET('/api/v1/admin/scim')) });
  return (
    <section className="card" aria-label="SCIM provisioning">
      <h2>SCIM provisioning</h2>
      <QueryState isLoading={scim.isLoading} error={scim.error}>
        {scim.data && <ScimSettings config={scim.data} />}
      </QueryState>
    </section>
  );
}

function ScimSettings({ config }: { config: ScimConfig }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState<string>();
  const makeToken = useMutation({
    mutationFn: () => call(api.POST('/api/v1/admin/scim/token')),
    onSuccess: (created) => {
      setToken(created.token);
      queryClient.invalidateQueries({ queryKey: ['scim'] });
    },
  });
  return (
    <>
      <p>
        Base URL <code className="break">{config.base_url}</code>
      </p>
      <div className="row">
        <span data-testid="scim-token-state">
          {config.token_set && config.token_created_at
            ? `Token made ${new Date(config.token_created_at).toLocaleString()}`
            : 'No token yet'}
        </span>
        <button type="button" onClick={() => makeToken.mutate()} disabled={makeToken.isPending}>
          {config.token_set ? 'Replace token' : 'Make token'}
        </button>
      </div>
      <ErrorText error={makeToken.error} />
      {token && (
        <section className="secret" aria-label="SCIM token">
          <p>The token is shown only now; it replaced any previous one:</p>
          <code data-testid="scim-token">{token}</code>
          <div className="actions">
            <button type="button" onClick={() => navigator.clipboard.writeText(token)}>
              Copy token
            </button>
            <button type="button" className="secondary" onClick={() => setToken(undefined)}>
              Done, hide it
            </button>
          </div>
        </section>
      )}
      <GroupMappingsEditor saved={config.group_mappings} />
    </>
  );
}
