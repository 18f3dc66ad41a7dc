// A GitHub-shaped OAuth 2 provider on loopback, for the OAuth tests: the token endpoint
// (`/login/oauth/access_token`, which checks client credentials, redirect_uri and the PKCE verifier
// against the challenge, and answers a bad code like GitHub: 200 with `{error}`) and the REST API's
// `/user` and `/user/emails`. There is no consent page: the test reads the authorize redirect itself
// and registers the code the provider would have issued.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GithubOAuthConfig } from '../../src/config.ts';

export interface FakeGithubAccount {
  id: number;
  login: string;
  name: string | null;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export interface FakeGithub {
  /** Provider config for the app: every URL on this server. */
  config: GithubOAuthConfig;
  /** A code for `account`, as GitHub would issue after consent to the authorization request `authorizeUrl`. */
  issueCode(account: FakeGithubAccount, authorizeUrl: URL): string;
  /** The next answer of one endpoint, whatever the request: a status and a raw body. */
  answerNext(endpoint: 'token' | 'user' | 'emails', status: number, body: string): void;
  /** Every token request's form, as received (tests check what the app sent). */
  tokenRequests: URLSearchParams[];
  /** Access tokens handed out (tests check none of them reaches a log). */
  issuedTokens: string[];
  close(): Promise<void>;
}

const CLIENT_ID = 'github-client-id';
const CLIENT_SECRET = 'github-client-secret';

/** RFC 7636 S256, computed here independently of the app's library. */
const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export async function startFakeGithub(): Promise<FakeGithub> {
  const codes = new Map<string, { account: FakeGithubAccount; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, FakeGithubAccount>();
  const scripted = new Map<string, { status: number; body: string }>();
  const tokenRequests: URLSearchParams[] = [];
  const issuedTokens: string[] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const accountOf = (req: IncomingMessage) => {
    const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    return match ? tokens.get(match[1] ?? '') : undefined;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const endpoint =
      path === '/login/oauth/access_token'
        ? 'token'
        : path === '/api/user'
          ? 'user'
          : path === '/api/user/emails'
            ? 'emails'
            : null;
    const script = endpoint ? scripted.get(endpoint) : undefined;
    if (endpoint && script) {
      scripted.delete(endpoint);
      res.writeHead(script.status, { 'content-type': 'application/json' }).end(script.body);
      return;
    }
    if (endpoint === 'token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      tokenRequests.push(form);
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
        return json(res, 200, { error: 'incorrect_client_credentials' });
      }
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (
        !grant ||
        grant.redirectUri !== form.get('redirect_uri') ||
        verifier.length < 43 ||
        s256(verifier) !== grant.challenge
      ) {
        return json(res, 200, { error: 'bad_verification_code', error_description: 'The code is incorrect' });
      }
      const token = `gho_${randomBytes(18).toString('base64url')}`;
      tokens.set(token, grant.account);
      issuedTokens.push(token);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    if ((endpoint === 'user' || endpoint === 'emails') && req.method === 'GET') {
      const account = accountOf(req);
      if (!account) return json(res, 401, { message: 'Bad credentials' });
      if (endpoint === 'user') {
        return json(res, 200, { id: account.id, login: account.login, name: account.name, email: null });
      }
      return json(
        res,
        200,
        account.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
      );
    }
    json(res, 404, { message: 'Not Found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    config: {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      authorizeUrl: `${base}/login/oauth/authorize`,
      tokenUrl: `${base}/login/oauth/access_token`,
      apiUrl: `${base}/api`,
    },
    issueCode(account, authorizeUrl) {
      const method = authorizeUrl.searchParams.get('code_challenge_method');
      const challenge = authorizeUrl.searchParams.get('code_challenge');
      const redirectUri = authorizeUrl.searchParams.get('redirect_uri');
      if (authorizeUrl.searchParams.get('client_id') !== CLIENT_ID) throw new Error('unknown client_id');
      if (method !== 'S256' || !challenge || !redirectUri)
        throw new Error('authorization request without S256 PKCE');
      const code = randomBytes(10).toString('hex');
      codes.set(code, { account, challenge, redirectUri });
      return code;
    },
    answerNext(endpoint, status, body) {
      scripted.set(endpoint, { status, body });
    },
    tokenRequests,
    issuedTokens,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
