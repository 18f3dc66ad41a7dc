// More screens in Chromium: a webhook (secret once, a test event delivered to a local receiver,
// redeliver), a just-in-time access request approved in the inbox and revoked, and the audit log
// with its filters; project members; audit export sinks; the SCIM token and group mappings.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
  type TestPage,
  type WebApp,
} from './browser.ts';

describe.skipIf(!chromiumAvailable)('web application: webhooks, access requests, audit', () => {
  let web: WebApp;
  let browser: Browser;
  let owner: Client;
  let orgId: string;
  let ownerPage: TestPage;
  let projectId: string;
  const received: string[] = [];
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(body);
      response.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    [web, browser] = await Promise.all([startWebApp({ webhooks: { allowPrivate: true } }), launchBrowser()]);
    ({ owner, orgId } = await web.t.createOrg('Hooks Inc'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Events' })).body.id;
    ownerPage = await openPage(browser, web.base);
    await signIn(ownerPage.page, owner.user.email);
    await ownerPage.page.getByRole('link', { name: 'Events' }).click();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('adds a webhook, shows its secret once, delivers a test event, redelivers it and deletes it', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const { port } = receiver.address() as AddressInfo;
    await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${port}/hook`);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const hook = page.getByTestId('webhook');
    await hook.getByRole('button', { name: 'Send test event' }).click();
    const row = hook.getByRole('row', { name: /webhook\.test/ });
    await expect.poll(() => row.locator('.status').textContent(), { timeout: 20_000 }).toBe('succeeded');
    expect(received.map((body) => JSON.parse(body).type)).toEqual(['webhook.test']);
    await captureBothWidths(page, 'webhooks');

    await row.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);

    // Deleted from the page, after a dialog that says its deliveries go with it.
    await hook.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toMatch(/Its deliveries and their log go with it/);
    await dialog.getByRole('button', { name: 'Delete webhook', exact: true }).click();
    await page.getByText('No webhooks.', { exact: true }).waitFor();
    expect((await owner.get(`/api/v1/projects/${projectId}/webhooks`)).body.items).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('requests access, has it approved in the inbox, shows the time left, and revokes it', async () => {
    const member = await web.t.createUser(orgId, 'member');
    expect(
      (await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: member.user.id, role: 'viewer' }))
        .status,
    ).toBe(201);
    const requester = await openPage(browser, web.base, 390);
    await signIn(requester.page, member.user.email);
    await requester.page.getByRole('link', { name: 'Events' }).click();
    await requester.page.getByRole('link', { name: 'Access requests' }).click();
    await requester.page.getByLabel('Role').selectOption('developer');
    await requester.page.getByLabel('Minutes').fill('30');
    await requester.page.getByLabel('Reason').fill('Fix the nightly import');
    await requester.page.getByRole('button', { name: 'Request access' }).click();
    const request = requester.page.getByTestId('access-request');
    await expect.poll(() => request.locator('.status').first().textContent()).toBe('pending');

    const { page } = ownerPage;
    await page.getByRole('link', { name: /Approvals/ }).click();
    await page.getByTestId('approval').getByRole('button', { name: 'Approve' }).click();
    await page.getByText('No pending approvals.').waitFor();

    await requester.page.reload();
    await expect.poll(() => request.locator('.status').first().textContent()).toBe('active');
    expect(await request.getByRole('cell', { name: /min left$/ }).textContent()).toMatch(
      /^(29|30) min left$/,
    );
    await captureBothWidths(requester.page, 'access-requests');

    await page.getByRole('link', { name: 'Access requests' }).click();
    await page.getByTestId('access-request').getByRole('button', { name: 'Revoke' }).click();
    await expect
      .poll(() => page.getByTestId('access-request').locator('.status').first().textContent())
      .toBe('revoked');
    expect(requester.problems).toEqual([]);
  });

  it('adds a user, changes a role and deactivates, beside the plan and usage', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Organization' }).click();
    await expect.poll(() => page.getByTestId('plan').textContent()).toBe('Plan starter (active)');
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('E-mail').fill('dana@example.com');
    await form.getByLabel('Name').fill('Dana');
    await form.getByLabel('Initial password').fill('a long enough password 42');
    await form.getByRole('button', { name: 'Add user' }).click();
    const row = page.getByTestId('user-dana@example.com');
    await page.getByLabel('Role of Dana').selectOption('admin');
    await expect
      .poll(
        async () =>
          (await owner.get('/api/v1/users?page_size=200')).body.items.find(
            (u: { email: string }) => u.email === 'dana@example.com',
          )?.org_role,
      )
      .toBe('admin');
    await row.getByRole('button', { name: 'Deactivate Dana' }).click();
    await row.getByRole('button', { name: 'Reactivate Dana' }).waitFor();
    const refused = await fetch(`${web.base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'dana@example.com', password: 'a long enough password 42' }),
    });
    expect(refused.status).toBe(401);
    await captureBothWidths(page, 'organization');
    expect(problems).toEqual([]);
  });

  it('edits the approval policy of the project', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: 'Events' });
    await page.getByRole('link', { name: 'Policy' }).click();
    const rule = page.getByTestId('rule-migration_apply');
    expect(await rule.getByRole('checkbox', { name: 'production' }).isChecked()).toBe(true); // the default
    await rule.getByRole('checkbox', { name: 'staging' }).check();
    await rule.getByLabel('Approvals needed').fill('2');
    await page.getByTestId('rule-bridge_run').getByRole('checkbox', { name: 'production' }).uncheck();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = (await owner.get(`/api/v1/projects/${projectId}/policy`)).body.rules as {
      operation: string;
      environments: string[];
      required_approvals: number;
    }[];
    const migrationApply = saved.find((r) => r.operation === 'migration_apply');
    expect(migrationApply?.environments.sort()).toEqual(['production', 'staging']);
    expect(migrationApply?.required_approvals).toBe(2);
    expect(saved.find((r) => r.operation === 'bridge_run')).toBeUndefined();
    await captureBothWidths(page, 'policy');
    expect(problems).toEqual([]);
  });

  it('lists the audit log and filters it by action and project', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = page.getByTestId('audit-entries').locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(3);
    await page.getByLabel('Action').fill('access_request.revoke');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator('code').textContent()).toBe('access_request.revoke');
    await page.getByLabel('Action').fill('no.such.action');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No entries match.').waitFor();
    await page.getByLabel('Action').fill('');
    await page
      .getByRole('form', { name: 'Filter the audit log' })
      .getByLabel('Project')
      .selectOption({ label: 'Events' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.count()).toBeGreaterThan(1);
    await captureBothWidths(page, 'audit');
    expect(problems).toEqual([]);
  });
  it('adds a project member, changes the role, and removes the member', async () => {
    const { page, problems } = ownerPage;
    const grace = await owner.post('/api/v1/users', {
      email: `grace-${crypto.randomUUID()}@example.com`,
      name: 'Grace Hopper',
      password: 'a long enough password',
      org_role: 'member',
    });
    expect(grace.status, JSON.stringify(grace.body)).toBe(201);
    const members = async () =>
      (await owner.get(`/api/v1/projects/${projectId}/members`)).body.items as {
        user_id: string;
        role: string;
      }[];
    await page.goto(`/projects/${projectId}/members`);
    const form = page.getByRole('form', { name: 'Add member' });
    await form.getByLabel('User').selectOption({ label: `Grace Hopper (${grace.body.email})` });
    await form.getByLabel('Role').selectOption('developer');
    await form.getByRole('button', { name: 'Add member' }).click();
    const row = page.getByTestId(`member-${grace.body.email}`);
    await row.waitFor();
    expect((await members()).find((m) => m.user_id === grace.body.id)?.role).toBe('developer');

    await row.getByLabel('Project role of Grace Hopper').selectOption('viewer');
    await expect
      .poll(async () => (await members()).find((m) => m.user_id === grace.body.id)?.role)
      .toBe('viewer');
    await captureBothWidths(page, 'members');

    await row.getByRole('button', { name: 'Remove Grace Hopper' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await members()).some((m) => m.user_id === grace.body.id)).toBe(false);
    expect(problems).toEqual([]);
  });
  it('adds an audit sink with its secret shown once, tests it, and shows its lag', async () => {
    const { page, problems } = ownerPage;
    await page.goto('/organization');
    const { port } = receiver.address() as AddressInfo;
    const form = page.getByRole('form', { name: 'New audit sink' });
    await form.getByLabel('Sink URL').fill(`http://127.0.0.1:${port}/audit`);
    await form.getByRole('button', { name: 'Add sink' }).click();
    expect(await page.getByTestId('sink-secret').textContent()).toMatch(/^whsec_/);
    const sink = page.getByTestId('audit-sink');
    expect(await sink.getByTestId('sink-lag').textContent()).toMatch(/^lag \d+$/);
    const before = received.length;
    await sink.getByRole('button', { name: 'Test sink' }).click();
    await expect.poll(() => sink.getByRole('status').textContent()).toBe('Accepted (HTTP 204)');
    expect(received.length).toBeGreaterThan(before);
    await page
      .getByRole('region', { name: 'Sink signing secret' })
      .getByRole('button', { name: 'Done, hide it' })
      .click();
    expect(await page.getByTestId('sink-secret').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('makes a SCIM token shown once and saves group mappings to roles', async () => {
    const { page, problems } = ownerPage;
    await page.goto('/organization');
    const scim = page.getByRole('region', { name: 'SCIM provisioning' });
    await scim.getByRole('button', { name: 'Make token' }).click();
    const token = (await scim.getByTestId('scim-token').textContent()) ?? '';
    expect(token.length).toBeGreaterThan(20);
    await expect.poll(() => scim.getByTestId('scim-token-state').textContent()).toMatch(/^Token made/);
    await scim.getByRole('button', { name: 'Add group' }).click();
    const mapping = scim.getByTestId('group-mapping');
    await mapping.getByLabel('Group name').fill('dba');
    await mapping.getByLabel('Organization role').selectOption('member');
    await mapping.getByLabel('Role in Events').selectOption('developer');
    await scim.getByRole('button', { name: 'Save mappings' }).click();
    await scim.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await owner.get('/api/v1/admin/scim')).body.group_mappings).toEqual([
      { group: 'dba', org_role: 'member', projects: [{ project_id: projectId, role: 'developer' }] },
    ]);
    // The token works on /scim/v2 only, as the identity provider will use it.
    const users = await fetch(`${web.base}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
    expect(users.status).toBe(200);
    await captureBothWidths(page, 'organization');
    expect(problems).toEqual([]);
  });
});
