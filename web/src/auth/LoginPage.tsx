// Sign-in: e-mail and password (then the 2FA step when the account has it), the configured OAuth
// providers, and single sign-on by organization (SAML).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { safeNext } from './session.ts';

interface WebConfig {
  oauth_providers: string[];
  signup_open: boolean;
}

const PROVIDER_NAMES: Record<string, string> = { google: 'Google', github: 'GitHub' };

export function LoginPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [orgId, setOrgId] = useState('');

  const config = useQuery({
    queryKey: ['web-config'],
    queryFn: async (): Promise<WebConfig> => (await fetch('/web-config.json')).json(),
  });

  const login = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/login', { body: { email, password } })),
    onSuccess: async (answer) => {
      if ('needs_2fa' in answer) {
        navigate(`/login/2fa?next=${encodeURIComponent(next)}`, {
          state: { partialToken: answer.partial_token },
        });
        return;
      }
      queryClient.setQueryData(['me'], answer.user);
      navigate(next);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };

  return (
    <main className="auth-page">
      <h1>Sign in to dbops</h1>
      <form onSubmit={submit} className="card stack">
        <label>
          E-mail
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button type="submit" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorText error={login.error} />
      </form>
      {config.data?.signup_open && (
        <p>
          New here? <Link to="/signup">Create an account</Link>
        </p>
      )}
      {config.data && config.data.oauth_providers.length > 0 && (
        <nav className="card stack" aria-label="Sign in with a provider">
          {config.data.oauth_providers.map((provider) => (
            <a key={provider} className="button secondary" href={`/api/v1/auth/oauth/${provider}/authorize`}>
              Sign in with {PROVIDER_NAMES[provider] ?? provider}
            </a>
          ))}
        </nav>
      )}
      <form
        className="card stack"
        aria-label="Single sign-on"
        onSubmit={(event) => {
          event.preventDefault();
          window.location.assign(`/api/v1/auth/saml/${encodeURIComponent(orgId.trim())}/login`);
        }}
      >
        <label>
          Organization ID (single sign-on)
          <input
            value={orgId}
            onChange={(e) => setOrgId(e.target.value)}
            required
            pattern="[0-9a-fA-F-]{36}"
          />
        </label>
        <button type="submit" className="secondary">
          Continue with SSO
        </button>
      </form>
    </main>
  );
}
