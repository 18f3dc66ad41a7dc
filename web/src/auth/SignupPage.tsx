// Signup (when the server allows it, SIGNUP=open): a new organization and its owner, signed in at
// once, so that a person can start with the web application alone, without the API or a shell.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../api/client.ts';
import { ErrorText } from '../components/ErrorText.tsx';

export function SignupPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ email: '', password: '', name: '', organization_name: '' });
  const field = (key: keyof typeof form) => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value }),
  });
  const signup = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/signup', { body: form })),
    onSuccess: (answer) => {
      queryClient.setQueryData(['me'], answer.user);
      navigate('/');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signup.mutate();
  };
  return (
    <main className="auth-page">
      <h1>Create an account</h1>
      <form onSubmit={submit} className="card stack" aria-label="Sign up">
        <label>
          Your name
          <input required autoComplete="name" {...field('name')} />
        </label>
        <label>
          E-mail
          <input type="email" required autoComplete="email" {...field('email')} />
        </label>
        <label>
          Password (8 characters or more)
          <input type="password" required minLength={8} autoComplete="new-password" {...field('password')} />
        </label>
        <label>
          Organization (yours to own)
          <input required autoComplete="organization" {...field('organization_name')} />
        </label>
        <button type="submit" disabled={signup.isPending}>
          {signup.isPending ? 'Creating…' : 'Create account'}
        </button>
        <ErrorText error={signup.error} />
      </form>
      <p>
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </main>
  );
}
