// What the server decides, as the web application shows it, in Chromium against real PostgreSQL:
// the buttons of a patch and a migration are the server's `allowed_actions` (a failed patch offers
// Execute again; a run in flight refuses with a 409 that links to it); a migration's rollback that
// drops a column asks for the tick and the target's name; backups of dropped columns are listed;
// the approvals inbox says what is to be decided (title, SQL, connection, environment, requester),
// offers Approve to an admin but not to the requester; a run's page shows its subject.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/app.ts';
import { connectionBody } from '../support/connections.ts';
import type { TestPgDatabase } from '../support/databases.ts';
import { queryPostgres as onTarget } from '../support/target-query.ts';
import {
  captureBothWidths,
  chromiumAvailable,
  openPage,
  signIn,
  startWithTwoTargets,
  type TestPage,
  type WebApp,
} from './browser.ts';

const run = (page: Page) => page.getByTestId('run-progress');
const status = (page: Page) => page.locator('.page-head .status').textContent();
/** The refusals a test provokes on purpose are logged by the browser as failed loads. */
const unexpected = (problems: string[]) => problems.filter((p) => !/status of 4\d\d/.test(p));

// Each case walks several pages and checks each at two widths (axe included): more than the suite's
// 30 s on a loaded 2-core machine.
describe.skipIf(!chromiumAvailable)('web application: what the server decides', { timeout: 90_000 }, () => {
  let web: WebApp;
  let browser: Browser;
  let owner: Client;
  let orgId: string;
  let projectId: string;
  let source: TestPgDatabase;
  let target: TestPgDatabase;
  let ownerPage: TestPage;
  const ids: Record<string, string> = {};
  const columns = async () =>
    (
      await onTarget<{ column_name: string }>(
        target.url,
        "select column_name from information_schema.columns where table_schema = 'public' and table_name = 'items' order by 1",
      )
    ).map((c) => c.column_name);
  const names = async () =>
    (await onTarget<{ name: string }>(target.url, 'select name from items order by id')).map((r) => r.name);

  beforeAll(async () => {
    ({ web, browser, source, target } = await startWithTwoTargets('decisions'));
    await onTarget(source.url, 'create table items (id int primary key, name text not null, note text)');
    await onTarget(
      target.url,
      "create table items (id int primary key, name text not null); insert into items values (1, 'one'), (2, 'two'), (3, 'three')",
    );
    ({ owner, orgId } = await web.t.createOrg('Decide Co'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Ledger' })).body.id;
    for (const [name, url, environment, isProtected] of [
      ['source', source.url, 'development', false],
      ['target', target.url, 'development', false],
      ['production', target.url, 'production', true],
    ] as const) {
      const created = await owner.post(
        '/api/v1/connections',
        connectionBody(projectId, url, { name, environment, protected: isProtected }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids[name] = created.body.id;
    }
    ownerPage = await openPage(browser, web.base);
    await signIn(ownerPage.page, owner.user.email);
    await ownerPage.page.getByRole('heading', { name: 'Projects' }).waitFor();
    await ownerPage.page.getByRole('link', { name: 'Ledger' }).click();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await source?.drop();
    await target?.drop();
  });

  it('rolls back a migration whose rollback drops a column only with the tick and the target name', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Migrations' }).click();
    await page.getByLabel('Source (the reference)').selectOption(ids.source!);
    await page.getByLabel('Target (to change)').selectOption(ids.target!);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/migrations\/[0-9a-f-]{36}$/);
    const migrationId = page.url().split('/').at(-1)!;
    // Adding a column asks for one click; its rollback, which drops it, is shown marked.
    const rollbackSql = page.getByRole('list', { name: 'Rollback statements' }).locator('li');
    await expect
      .poll(() => rollbackSql.allTextContents())
      .toEqual([expect.stringMatching(/DROP COLUMN "note".*destroys data/i)]);
    expect(await page.getByRole('button', { name: /^Roll back/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Apply…' }).click();
    await page
      .getByRole('form', { name: 'Confirm apply' })
      .getByRole('button', { name: 'Apply migration' })
      .click();
    await expect.poll(() => status(page), { timeout: 20_000 }).toBe('applied');
    expect(await columns()).toEqual(['id', 'name', 'note']);
    // Applied: the server offers no second apply and no edit, only the rollback.
    expect(await page.getByRole('button', { name: 'Apply…' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save and re-lint' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Roll back…' }).click();
    const dialog = page.getByRole('form', { name: 'Confirm rollback' });
    await dialog.getByText(/DROP COLUMN "note"/i).waitFor();
    const submit = dialog.getByRole('button', { name: 'Roll back migration' });
    expect(await submit.isDisabled()).toBe(true);
    await dialog.getByLabel('I understand that this is irreversible').check();
    expect(await submit.isDisabled()).toBe(true);
    await dialog.getByLabel(/Type the target's name/).fill('targe');
    expect(await submit.isDisabled()).toBe(true);
    // The API refuses it the same way without them, naming the statement.
    const refused = await owner.post(`/api/v1/migrations/${migrationId}/rollback`, {});
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toMatch(/note/);
    expect(await columns()).toEqual(['id', 'name', 'note']);
    await dialog.getByLabel(/Type the target's name/).fill('target');
    await captureBothWidths(page, 'migration-rollback-confirm');
    await submit.click();
    await expect.poll(() => run(page).locator('strong').textContent()).toBe('migration rollback');
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    await expect.poll(() => status(page)).toBe('rolled back');
    expect(await columns()).toEqual(['id', 'name']);
    expect(await page.getByRole('button', { name: 'Roll back…' }).count()).toBe(0);
    expect(unexpected(problems)).toEqual([]);
    problems.length = 0;
  });

  it('lists the backup tables of a dropped column', async () => {
    const { page, problems } = ownerPage;
    await onTarget(source.url, 'alter table items drop column note');
    await onTarget(target.url, "alter table items add column legacy text; update items set legacy = 'old'");
    await page.getByRole('link', { name: 'Migrations' }).click();
    await page.getByLabel('Source (the reference)').selectOption(ids.source!);
    await page.getByLabel('Target (to change)').selectOption(ids.target!);
    await page.getByLabel(/Back up dropped tables and columns/).check();
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/migrations\/[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Apply…' }).click();
    const dialog = page.getByRole('form', { name: 'Confirm apply' });
    await dialog.getByLabel('I understand that this is irreversible').check();
    await dialog.getByLabel(/Type the target's name/).fill('target');
    await dialog.getByRole('button', { name: 'Apply migration' }).click();
    await expect.poll(() => status(page), { timeout: 20_000 }).toBe('applied');
    expect(await columns()).toEqual(['id', 'name']);
    const backups = page.getByRole('region', { name: 'Backup tables' });
    await expect.poll(() => backups.locator('li').count()).toBeGreaterThan(0);
    expect(await backups.locator('li code').first().textContent()).toMatch(/items/);
    await captureBothWidths(page, 'migration-backups');
    expect(unexpected(problems)).toEqual([]);
  });

  it('offers Execute again on a patch whose execute failed, which changed nothing', async () => {
    const { page, problems } = ownerPage;
    const before = await names();
    await page.getByRole('link', { name: 'Patches' }).click();
    await page.getByLabel('Title').fill('Shout the first two');
    await page.getByLabel('Connection').selectOption(ids.target!);
    await page.getByRole('textbox', { name: 'Patch SQL' }).click();
    await page.keyboard.type('UPDATE items SET name = upper(name) WHERE id <= 2');
    await page.getByRole('button', { name: 'Create patch' }).click();
    await page.waitForURL(/\/patches\/[0-9a-f-]{36}$/);
    // A draft: dry-run, execute, edit and delete; no rollback.
    await page.getByRole('button', { name: 'Execute' }).waitFor();
    for (const name of ['Dry-run', 'Edit', 'Delete…'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(1);
    expect(await page.getByRole('button', { name: 'Roll back' }).count()).toBe(0);

    await page.getByLabel('Expected rows').fill('5');
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('failed');
    await expect.poll(() => status(page)).toBe('failed');
    expect(await run(page).getByRole('alert').textContent()).toMatch(/5/);
    expect(await names()).toEqual(before);
    await page.getByText('The last execute failed and changed nothing.').waitFor();
    await page.getByRole('button', { name: 'Execute' }).waitFor();
    expect(await page.getByRole('button', { name: 'Roll back' }).count()).toBe(0);
    await captureBothWidths(page, 'patch-failed');

    // Edited (the server offers it on a failed patch), then executed again with the right count.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('form', { name: 'Edit patch' });
    await edit.getByLabel('Title').fill('Shout two');
    await edit.getByRole('button', { name: 'Save patch' }).click();
    await page.getByRole('heading', { name: 'Shout two' }).waitFor();
    await page.getByLabel('Expected rows').fill('2');
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => status(page), { timeout: 20_000 }).toBe('executed');
    expect(await names()).toEqual(['ONE', 'TWO', ...before.slice(2)]);
    await page.getByRole('button', { name: 'Roll back' }).waitFor();
    expect(await page.getByRole('button', { name: 'Execute' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete…' }).count()).toBe(0);

    // A draft deleted from its page, asked twice.
    const draft = await owner.post('/api/v1/patches', {
      project_id: projectId,
      connection_id: ids.target,
      title: 'Not needed',
      sql: 'DELETE FROM items WHERE id = 3',
    });
    await page.goto(`/projects/${projectId}/patches/${draft.body.id}`);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete patch' }).click();
    await page.waitForURL(/\/patches$/);
    expect((await owner.get(`/api/v1/patches/${draft.body.id}`)).status).toBe(404);
    expect(unexpected(problems)).toEqual([]);
    problems.length = 0;
  });

  it('shows the approval with what is decided; the requester cannot approve it, an admin can', async () => {
    const { page, problems } = ownerPage;
    // A long single-line statement: it scrolls in its box, the page keeps its width.
    const list = Array.from({ length: 60 }, (_, i) => i + 1000).join(',');
    const sql = `UPDATE items SET name = 'drei' WHERE id = 3 AND id NOT IN (${list})`;
    const patch = await owner.post('/api/v1/patches', {
      project_id: projectId,
      connection_id: ids.production,
      title: 'Rename three',
      sql,
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(201);
    await page.goto(`/projects/${projectId}/patches/${patch.body.id}`);
    await page.getByRole('button', { name: 'Execute' }).waitFor();

    // Executed meanwhile elsewhere: the run waits for approval, and this page's Execute is refused
    // with the run named and linked.
    const started = await owner.post(`/api/v1/patches/${patch.body.id}/execute`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.status).toBe('awaiting_approval');
    await page.getByRole('button', { name: 'Execute' }).click();
    const conflict = page.getByTestId('run-conflict');
    await expect.poll(() => conflict.textContent()).toContain(started.body.id);
    expect(await conflict.getByRole('link', { name: 'Open that run' }).getAttribute('href')).toBe(
      `/runs/${started.body.id}`,
    );
    await expect.poll(() => page.getByRole('button', { name: 'Execute' }).count()).toBe(0);
    await captureBothWidths(page, 'patch-run-conflict');

    // The requester's inbox: what, where, who, how far; no Approve, Reject to withdraw.
    await page.getByRole('link', { name: /Approvals/ }).click();
    const item = page.getByTestId('approval');
    await item.getByRole('heading', { name: 'Rename three' }).waitFor();
    expect(await item.getByTestId('subject-summary').textContent()).toBe(sql);
    expect(await item.locator('.subject-kind').textContent()).toBe('patch');
    const where = item.locator('.connection-label');
    expect(await where.locator('strong').textContent()).toBe('production');
    expect(await where.locator('.env').textContent()).toBe('production');
    await where.getByText('protected').waitFor();
    expect(await item.getByTestId('approval-requester').textContent()).toBe(
      `${owner.user.name} (${owner.user.email})`,
    );
    expect(await item.getByTestId('approval-count').textContent()).toBe('0 of 1 approvals');
    expect(await item.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await item.getByRole('button', { name: 'Reject' }).waitFor();
    expect(await item.getByRole('link', { name: 'Open the patch' }).getAttribute('href')).toBe(
      `/projects/${projectId}/patches/${patch.body.id}`,
    );
    await captureBothWidths(page, 'approvals-requester');

    // An admin of the organization sees the same, with Approve, and approves.
    const admin = await web.t.createUser(orgId, 'admin');
    const reviewer = await openPage(browser, web.base, 390);
    await signIn(reviewer.page, admin.user.email);
    await reviewer.page.getByRole('link', { name: 'Ledger' }).click();
    await reviewer.page.getByRole('link', { name: /Approvals/ }).click();
    const pending = reviewer.page.getByTestId('approval');
    expect(await pending.getByTestId('subject-summary').textContent()).toBe(sql);
    await captureBothWidths(reviewer.page, 'approvals-reviewer');
    await pending.getByLabel('Comment').fill('Fine');
    await pending.getByRole('button', { name: 'Approve' }).click();
    await reviewer.page.getByText('No pending approvals.').waitFor();
    expect(reviewer.problems).toEqual([]);

    // The run's page: its subject and the approval it had.
    await page.goto(`/runs/${started.body.id}`);
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    const subject = page.getByRole('region', { name: 'Subject' });
    await subject.getByRole('heading', { name: 'Rename three' }).waitFor();
    expect(await subject.getByTestId('subject-summary').textContent()).toBe(sql);
    const approval = page.getByTestId('approval');
    await expect.poll(() => approval.getByTestId('approval-count').textContent()).toBe('1 of 1 approvals');
    await approval.getByText(/approved .*“Fine”/).waitFor();
    await captureBothWidths(page, 'run-subject');
    expect(await names()).toEqual(['ONE', 'TWO', 'drei']);
    expect(unexpected(problems)).toEqual([]);
  });

  it('shows who asks for access and where on the access requests page; only a decider may approve', async () => {
    const { page, problems } = ownerPage;
    const member = await web.t.createUser(orgId, 'member');
    const added = await owner.post(`/api/v1/projects/${projectId}/members`, {
      user_id: member.user.id,
      role: 'viewer',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const requested = await member.post(`/api/v1/projects/${projectId}/access-requests`, {
      role: 'developer',
      duration_minutes: 30,
      reason: 'Fix the invoice totals',
      connection_id: ids.production,
    });
    expect(requested.status, JSON.stringify(requested.body)).toBe(201);

    // The requester: their request, its approval to come, no Approve.
    const asker = await openPage(browser, web.base, 390);
    await signIn(asker.page, member.user.email);
    await asker.page.getByRole('link', { name: 'Ledger' }).click();
    await asker.page.getByRole('link', { name: 'Access requests' }).click();
    const mine = asker.page.getByTestId('access-request');
    await mine.getByText('Fix the invoice totals').waitFor();
    await mine.getByText('0 of 1 approvals').waitFor();
    expect(await mine.locator('.connection-label strong').textContent()).toBe('production');
    expect(await mine.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await captureBothWidths(asker.page, 'access-requests-requester');
    expect(asker.problems).toEqual([]);

    // The owner: who asks, where, and Approve.
    await page.goto(`/projects/${projectId}/access-requests`);
    const row = page.getByTestId('access-request');
    await row.getByText(member.user.name).waitFor();
    await row.locator('.connection-label').getByText('protected').waitFor();
    await row.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => row.locator('td .status').first().textContent()).toBe('active');
    await row.getByText('1 of 1 approvals').waitFor();
    expect(await row.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(unexpected(problems)).toEqual([]);
  });
});
