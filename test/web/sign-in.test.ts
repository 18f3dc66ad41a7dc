// The web application in Chromium: serving, sign-in with password and with the 2FA step (set up in
// the profile page), signup from the sign-in page, the OAuth landing page /login/2fa, sign out, and
// an API key whose secret is shown once and copied.
import { Secret, TOTP } from 'otpauth';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/app.ts';
import {
  captureBothWidths,
  chromiumAvailable,
  launchBrowser,
  openPage,
  signIn,
  startWebApp,
  type WebApp,
} from './browser.ts';

const totp = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) });

describe.skipIf(!chromiumAvailable)('web application: signing in', () => {
  let web: WebApp;
  let browser: Browser;
  let owner: Client;

  beforeAll(async () => {
    [web, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    ({ owner } = await web.t.createOrg('Acme Data'));
    await owner.post('/api/v1/projects', { name: 'Warehouse' });
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('sends a visitor to the sign-in page, signs in, and lands on the page asked for', async () => {
    const { page, problems } = await openPage(browser, web.base);
    const response = await page.goto('/api-keys');
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForURL(/\/login\?next=%2Fapi-keys$/);
    await captureBothWidths(page, 'login');

    await page.getByLabel('E-mail').fill(owner.user.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid email or password');

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/api-keys$/);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await expect.poll(() => page.locator('.org').textContent()).toBe('Acme Data');
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
  });

  it('signs up from the sign-in page: a new organization and its owner, signed in at once', async () => {
    const { page, problems } = await openPage(browser, web.base, 390);
    await page.goto('/login');
    await page.getByRole('link', { name: 'Create an account' }).click();
    const form = page.getByRole('form', { name: 'Sign up' });
    await form.getByLabel('Your name').fill('Nora New');
    await form.getByLabel('E-mail').fill('nora@signup.example');
    await form.getByLabel(/^Password/).fill('a long enough password');
    await form.getByLabel(/^Organization/).fill('Nora Analytics');
    await captureBothWidths(page, 'signup');
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByText('No projects yet: create the first one below.').waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/v1/auth/me')).json());
    expect(me).toMatchObject({ email: 'nora@signup.example', name: 'Nora New', org_role: 'owner' });
    expect(problems).toEqual([]);
  });

  it('creates an API key and shows its secret once, with a copy button', async () => {
    const { page, problems } = await openPage(browser, web.base);
    await signIn(page, owner.user.email);
    await page.getByRole('link', { name: 'API keys' }).click();
    // React renders the new page in a transition, keeping the old one on screen meanwhile: the home
    // page's "New project name" would take the key's name if the form were looked up before it shows.
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name', { exact: true }).fill('ci deploys');
    await form.getByRole('checkbox', { name: 'write' }).check();
    await form.getByRole('button', { name: 'Create key' }).click();

    const secret = await page.getByTestId('api-key-secret').textContent();
    expect(secret).toMatch(/^ak_[0-9A-Za-z]{8}_[0-9A-Za-z]{32,}$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    // The secret works as a bearer key, and the list shows only the prefix.
    const me = await fetch(`${web.base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    await page.getByRole('cell', { name: 'ci deploys', exact: true }).waitFor();
    await captureBothWidths(page, 'api-keys');

    // Shown once: gone after hiding it and after a reload.
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await page.reload();
    await page.getByRole('cell', { name: 'ci deploys', exact: true }).waitFor();
    expect(await page.content()).not.toContain(secret!);
    expect(problems).toEqual([]);
  });

  it('turns on 2FA in the profile, then asks for a code at the next sign-in; signs out', async () => {
    const user = await web.t.createUser((await owner.get('/api/v1/orgs/current')).body.id, 'member');
    const { page, problems } = await openPage(browser, web.base);
    await signIn(page, user.user.email);
    await page
      .getByRole('navigation', { name: 'Account' })
      .getByRole('link', { name: user.user.name })
      .click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.getByRole('img', { name: 'QR code of the authenticator key' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    await page.getByLabel('Code from the app').fill(totp(secret).generate());
    await page.getByRole('button', { name: 'Turn on 2FA' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    const codes = await page.getByTestId('recovery-codes').locator('code').allTextContents();
    expect(codes).toHaveLength(10);
    await captureBothWidths(page, 'profile-2fa');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/login$/);
    expect((await page.context().cookies()).find((c) => c.name === 'session')).toBeUndefined();

    await signIn(page, user.user.email);
    await page.waitForURL(/\/login\/2fa/);
    await page.getByLabel(/Code from your authenticator app/).fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').waitFor();
    // The code of the next 30-second step: the one of enabling is refused as a replay.
    await page
      .getByLabel(/Code from your authenticator app/)
      .fill(totp(secret).generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);

    // OAuth's redirect for a 2FA user lands on /login/2fa with the partial token in the fragment.
    const login = await fetch(`${web.base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.user.email, password: 'correct horse battery' }),
    });
    const { partial_token } = (await login.json()) as { partial_token: string };
    const oauth = await openPage(browser, web.base, 390);
    await oauth.page.goto(`/login/2fa#partial_token=${encodeURIComponent(partial_token)}`);
    await captureBothWidths(oauth.page, 'login-2fa');
    await oauth.page.getByLabel(/Code from your authenticator app/).fill(codes[0]!);
    await oauth.page.getByRole('button', { name: 'Verify' }).click();
    await oauth.page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(await oauth.page.getByRole('link', { name: 'Warehouse' }).count()).toBe(0); // a member sees no project
  });

  it('offers the OAuth providers that are configured', async () => {
    const { page } = await openPage(browser, web.base);
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('link', { name: /Sign in with/ }).count()).toBe(0);
  });
});
