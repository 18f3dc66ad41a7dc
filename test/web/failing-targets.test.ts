// Failing targets in Chromium, counted at the server that sees the logins: opening the Drift page
// tries a connection whose login is refused once, and not again when the page is opened again; a
// connection that fails otherwise is tried at most twice; the error stays on the page with a Retry
// button, which is the only way to try again; the Schema button asks once as well.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOrgPlan } from '../../src/modules/billing/billing.repo.ts';
import type { Client } from '../support/app.ts';
import { connectionBody, type PasswordCatcher, passwordCatcher } from '../support/connections.ts';
import { listenPeer } from '../support/targets.ts';
import { chromiumAvailable, launchBrowser, openPage, signIn, startWebApp, type WebApp } from './browser.ts';

/** The browser logs the 502s it is shown on purpose as failed loads; nothing else may be logged. */
const unexpected = (problems: string[]) => problems.filter((p) => !/status of 502/.test(p));

describe.skipIf(!chromiumAvailable)('web application: targets that fail', { timeout: 90_000 }, () => {
  let web: WebApp;
  let browser: Browser;
  let owner: Client;
  let projectId: string;
  let refusing: PasswordCatcher;
  /** Accepts a connection and closes it at once: a failure that is not a refused login. */
  let hangingUp: { port: number; close(): Promise<void> };
  let hangUps = 0;

  beforeAll(async () => {
    [web, browser, refusing, hangingUp] = await Promise.all([
      startWebApp(),
      launchBrowser(),
      passwordCatcher(),
      listenPeer((socket) => {
        hangUps += 1;
        socket.destroy();
      }),
    ]);
    let orgId: string;
    ({ owner, orgId } = await web.t.createOrg('Failing Co'));
    await updateOrgPlan(
      web.t.store.db,
      orgId,
      { plan: 'enterprise', rate_limit_per_minute: null, rate_limit_per_hour: null },
      new Date(),
    );
    projectId = (await owner.post('/api/v1/projects', { name: 'Fragile' })).body.id;
    for (const [name, port] of [
      ['locked', refusing.port],
      ['gone', hangingUp.port],
    ] as const) {
      const body = connectionBody(projectId, 'postgres://app@127.0.0.1/app', { name, port, password: 'x' });
      expect((await owner.post('/api/v1/connections', body)).status).toBe(201);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await refusing?.close();
    await hangingUp?.close();
  });

  it('tries a refused login once per request of the person, another failure at most twice', async () => {
    const { page, problems } = await openPage(browser, web.base);
    await signIn(page, owner.user.email);
    await page.getByRole('link', { name: 'Fragile' }).click();
    await page.getByRole('link', { name: /^Drift/ }).click();
    const locked = page.getByRole('region', { name: 'Drift of locked' });
    const gone = page.getByRole('region', { name: 'Drift of gone' });
    await expect
      .poll(() => locked.getByRole('alert').textContent())
      .toBe('Connection "locked" failed: Authentication failed: password authentication failed');
    await expect.poll(() => gone.getByRole('alert').textContent()).toMatch(/^Connection "gone" failed: /);
    // Settled: the refused login was tried once, the other failure once more.
    await page.waitForTimeout(1_500);
    expect(refusing.passwords.length).toBe(1);
    expect(hangUps).toBe(2);

    // Opening the page again shows the errors kept; it does not ask again by itself.
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('link', { name: /^Drift/ }).click();
    await locked.getByRole('alert').waitFor();
    await page.waitForTimeout(1_000);
    expect([refusing.passwords.length, hangUps]).toEqual([1, 2]);

    // Retry is the person's: one more login, shown the same way.
    await locked.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => refusing.passwords.length).toBe(2);
    await locked.getByRole('button', { name: 'Retry' }).waitFor();
    await page.waitForTimeout(1_000);
    expect(refusing.passwords.length).toBe(2);

    // The Schema button of the connection: one login, the error with its Retry.
    await page.getByRole('link', { name: 'Connections' }).click();
    const row = page.getByTestId('connection-locked');
    await row.getByRole('button', { name: 'Schema' }).click();
    await row.getByRole('button', { name: 'Retry' }).waitFor();
    await page.waitForTimeout(1_000);
    expect(refusing.passwords.length).toBe(3);
    // The connection test says the cause once, in words.
    await row.getByRole('button', { name: 'Test' }).click();
    await expect
      .poll(() => row.locator('p.error').first().textContent())
      .toMatch(/^Authentication failed: password authentication failed/);
    expect(unexpected(problems)).toEqual([]);
  });
});
