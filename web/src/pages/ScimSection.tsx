// SCIM provisioning: the base URL for the identity provider, the token (shown once; a new one
// replaces the old at once) and the group mappings from identity-provider groups to roles.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema.d.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { SecretOnce } from '../components/SecretOnce.tsx';
import { QueryState } from '../components/States.tsx';
import { GroupMappingsEditor } from './GroupMappingsEditor.tsx';

type ScimConfig = components['schemas']['ScimConfig'];

export function ScimSection() {
  const scim = useQuery({ queryKey: ['scim'], queryFn: () => call(api.GET('/api/v1/admin/scim')) });
  return (
    <section className="card" aria-label="SCIM provisioning">
      <h2>SCIM provisioning</h2>
      <QueryState
        isLoading={scim.isLoading}
        error={scim.error}
        onRetry={() => void scim.refetch()}
        retrying={scim.isFetching}
      >
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
        <SecretOnce
          key={token}
          label="SCIM token"
          secret={token}
          testId="scim-token"
          copyLabel="Copy token"
          onHide={() => setToken(undefined)}
        >
          The token is shown only now; it replaced any previous one:
        </SecretOnce>
      )}
      <GroupMappingsEditor saved={config.group_mappings} />
    </>
  );
}
