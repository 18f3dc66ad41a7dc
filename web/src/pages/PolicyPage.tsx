// The project's approval policy: for each operation, which environments need approval, how many
// approvals, and whether the requester may approve their own request. Saved as a whole (PUT).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { rowsOf } from '../lib/forms.ts';

type Rule = components['schemas']['PolicyRule'];
type Environment = Rule['environments'][number];

const ENVIRONMENTS: Environment[] = ['development', 'staging', 'production'];

export function PolicyPage() {
  const { pid = '' } = useParams();
  const queryClient = useQueryClient();
  const policy = useQuery({
    queryKey: ['policy', pid],
    queryFn: () => call(api.GET('/api/v1/projects/{pid}/policy', { params: { path: { pid } } })),
  });
  const [rows, setRows] = useState<Rule[]>([]);
  useEffect(() => {
    if (policy.data) setRows(rowsOf(policy.data.rules));
  }, [policy.data]);
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PUT('/api/v1/projects/{pid}/policy', {
          params: { path: { pid } },
          body: { rules: rows.filter((rule) => rule.environments.length > 0) },
        }),
      ),
    onSuccess: (saved) => queryClient.setQueryData(['policy', pid], saved),
  });
  const change = (index: number, patch: Partial<Rule>) =>
    setRows(rows.map((rule, i) => (i === index ? { ...rule, ...patch } : rule)));

  return (
    <>
      <h1>Approval policy</h1>
      <p className="muted">
        Protected connections always need another person's approval, whatever this policy says.
      </p>
      <QueryState
        isLoading={policy.isLoading}
        error={policy.error}
        onRetry={() => void policy.refetch()}
        retrying={policy.isFetching}
      >
        <form
          className="stack"
          aria-label="Approval policy"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          {rows.map((rule, index) => (
            <fieldset key={rule.operation} className="card" data-testid={`rule-${rule.operation}`}>
              <legend>{rule.operation.replace(/_/g, ' ')}</legend>
              {ENVIRONMENTS.map((environment) => (
                <label key={environment} className="checkbox">
                  <input
                    type="checkbox"
                    checked={rule.environments.includes(environment)}
                    onChange={(e) =>
                      change(index, {
                        environments: e.target.checked
                          ? [...rule.environments, environment]
                          : rule.environments.filter((env) => env !== environment),
                      })
                    }
                  />
                  {environment}
                </label>
              ))}
              <label className="inline">
                Approvals needed
                <input
                  type="number"
                  min={1}
                  max={10}
                  value={rule.required_approvals}
                  onChange={(e) => change(index, { required_approvals: Number(e.target.value) })}
                />
              </label>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={rule.allow_self_approval}
                  onChange={(e) => change(index, { allow_self_approval: e.target.checked })}
                />
                Requester may approve
              </label>
            </fieldset>
          ))}
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save policy
            </button>
            {save.isSuccess && (
              <span className="ok" role="status">
                Saved.
              </span>
            )}
          </div>
          <ErrorText error={save.error} />
        </form>
      </QueryState>
    </>
  );
}
