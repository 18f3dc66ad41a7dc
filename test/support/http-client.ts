// A small client for tests that talk to real server processes over HTTP: sign in (session cookie and
// CSRF token, as the web app does) or use an API key, against any of several processes.
import { expect } from 'vitest';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON body of any route; tests assert on its values
  body: any;
}

export interface HttpSession {
  cookie: string;
  csrf: string;
}

export type Credential = { session: HttpSession } | { bearer: string } | Record<string, never>;

export async function call(
  base: string,
  method: string,
  url: string,
  credential: Credential,
  body?: unknown,
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if ('session' in credential) {
    headers.cookie = credential.session.cookie;
    if (method !== 'GET') headers['x-csrf-token'] = credential.session.csrf;
  }
  if ('bearer' in credential) headers.authorization = `Bearer ${credential.bearer}`;
  const response = await fetch(`${base}${url}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * Signs in; `clientIp` is sent as X-Forwarded-For, for servers that trust the loopback as their
 * proxy (TRUSTED_PROXIES), so that sign-ins are counted apart from other tests' (5 per minute per IP).
 */
export async function signIn(
  base: string,
  email: string,
  password: string,
  clientIp?: string,
): Promise<HttpSession> {
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(clientIp && { 'x-forwarded-for': clientIp }) },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(15_000),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const pairs = Object.fromEntries(
    response.headers.getSetCookie().map((c) => c.split(';')[0]?.split(/=(.*)/s).slice(0, 2) ?? []),
  );
  return {
    cookie: `session=${pairs.session}; csrf_token=${pairs.csrf_token}`,
    csrf: String(pairs.csrf_token),
  };
}
