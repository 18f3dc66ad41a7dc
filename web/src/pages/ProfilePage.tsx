// The user's profile: 2FA setup (QR code of the otpauth URL, the recovery codes shown once) and
// the open sessions, each of which can be signed out.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import { useMe } from '../auth/session.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { QrCode } from '../components/QrCode.tsx';
import { QueryState } from '../components/States.tsx';

export function ProfilePage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | undefined>();
  const setup = useMutation({ mutationFn: () => call(api.POST('/api/v1/auth/2fa/setup')) });
  const enable = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/2fa/enable', { body: { code: code.trim() } })),
    onSuccess: (answer) => {
      setRecoveryCodes(answer.recovery_codes);
      setCode('');
      queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  const disable = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/2fa/disable', { body: { code: code.trim() } })),
    onSuccess: () => {
      setCode('');
      setup.reset();
      queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  const sessions = useQuery({
    queryKey: ['sessions'],
    queryFn: () => call(api.GET('/api/v1/auth/sessions')),
  });
  const endSession = useMutation({
    mutationFn: (id: string) => call(api.DELETE('/api/v1/auth/sessions/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions'] }),
  });

  const user = me.data;
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    if (user?.two_factor_enabled) disable.mutate();
    else enable.mutate();
  };

  return (
    <>
      <h1>Profile</h1>
      {user && (
        <p>
          {user.name} · {user.email} · {user.org_role}
        </p>
      )}
      <section className="card stack" aria-label="Two-factor authentication">
        <h2>Two-factor authentication</h2>
        {recoveryCodes && (
          <div className="secret">
            <p>Recovery codes, shown only now: each signs you in once if you lose your authenticator.</p>
            <ul className="codes" data-testid="recovery-codes">
              {recoveryCodes.map((c) => (
                <li key={c}>
                  <code>{c}</code>
                </li>
              ))}
            </ul>
          </div>
        )}
        {user?.two_factor_enabled ? (
          <p className="ok">Enabled.</p>
        ) : setup.data ? (
          <>
            <p>Scan this code with your authenticator app, or enter the key by hand.</p>
            <QrCode text={setup.data.otpauth_url} label="QR code of the authenticator key" />
            <code data-testid="totp-secret">{setup.data.secret}</code>
          </>
        ) : (
          <button type="button" onClick={() => setup.mutate()} disabled={setup.isPending}>
            Set up two-factor authentication
          </button>
        )}
        {(setup.data || user?.two_factor_enabled) && !recoveryCodes && (
          <form onSubmit={submitCode} className="inline-form">
            <label>
              Code from the app
              <input
                autoComplete="one-time-code"
                required
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            </label>
            <button type="submit" className={user?.two_factor_enabled ? 'danger secondary' : ''}>
              {user?.two_factor_enabled ? 'Turn off 2FA' : 'Turn on 2FA'}
            </button>
          </form>
        )}
        <ErrorText error={setup.error ?? enable.error ?? disable.error} />
      </section>
      <section className="card" aria-label="Sessions">
        <h2>Sessions</h2>
        <QueryState
          isLoading={sessions.isLoading}
          error={sessions.error}
          onRetry={() => void sessions.refetch()}
          retrying={sessions.isFetching}
        >
          <ul className="list">
            {sessions.data?.items.map((s) => (
              <li key={s.id} className="row">
                <span>{s.user_agent ?? 'unknown browser'}</span>
                <span className="muted">
                  {s.ip} · last seen {new Date(s.last_seen_at).toLocaleString()}
                </span>
                {s.current ? (
                  <span className="tag">this session</span>
                ) : (
                  <button type="button" className="link" onClick={() => endSession.mutate(s.id)}>
                    Sign out this session
                  </button>
                )}
              </li>
            ))}
          </ul>
        </QueryState>
        <ErrorText error={endSession.error} />
      </section>
    </>
  );
}
