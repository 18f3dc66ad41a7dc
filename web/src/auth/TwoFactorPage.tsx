// The 2FA step: after a password login (the partial token comes in the navigation state) or after
// OAuth's redirect, which puts it in the fragment (`/login/2fa#partial_token=…`, never sent to a server).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { safeNext } from './session.ts';

export function partialTokenFrom(hash: string, state: unknown): string | undefined {
  const fromState = (state as { partialToken?: unknown } | null)?.partialToken;
  if (typeof fromState === 'string') return fromState;
  const fromHash = new URLSearchParams(hash.replace(/^#/, '')).get('partial_token');
  return fromHash ?? undefined;
}

export function TwoFactorPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const [partialToken] = useState(() => partialTokenFrom(location.hash, location.state));
  const [code, setCode] = useState('');

  const verify = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/auth/login/2fa', {
          body: { partial_token: partialToken ?? '', code: code.trim() },
        }),
      ),
    onSuccess: (answer) => {
      queryClient.setQueryData(['me'], answer.user);
      navigate(safeNext(params.get('next')), { replace: true });
    },
  });

  if (!partialToken) {
    return (
      <main className="auth-page">
        <h1>Two-factor authentication</h1>
        <p className="error" role="alert">
          This sign-in has expired. <Link to="/login">Sign in again</Link>.
        </p>
      </main>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };

  return (
    <main className="auth-page">
      <h1>Two-factor authentication</h1>
      <form onSubmit={submit} className="card stack">
        <label>
          Code from your authenticator app, or a recovery code
          <input
            autoComplete="one-time-code"
            inputMode="text"
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </label>
        <button type="submit" disabled={verify.isPending}>
          Verify
        </button>
        <ErrorText error={verify.error} />
      </form>
    </main>
  );
}
