// The operational screens in Chromium against real PostgreSQL targets: a connection added, tested,
// edited after saving; a migration compared, edited, applied with the double confirmation, and an
// additive one rolled back; a patch dry-run, executed, refused on rollback after a concurrent change
// and forced; an approval granted by a second user while the requester watches the run; copies with
// a filter and a subset; anonymization rules edited after saving; a seed with a chosen generator;
// the drift badge after an out-of-band ALTER TABLE and a check, gone after acknowledge; snapshots.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOrgPlan } from '../../src/modules/billing/billing.repo.ts';
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

describe.skipIf(!chromiumAvailable)('web application: operations on real targets', () => {
  let web: WebApp;
  let browser: Browser;
  let owner: Client;
  let orgId: string;
  let projectId: string;
  let source: TestPgDatabase;
  let target: TestPgDatabase;
  let ownerPage: TestPage;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ web, browser, source, target } = await startWithTwoTargets('operations'));
    await onTarget(source.url, 'create table items (id int primary key, name text not null)');
    await onTarget(
      target.url,
      "create table items (id int primary key, name text not null, legacy text); insert into items values (1, 'one', 'x'), (2, 'two', 'y'), (3, 'three', 'z')",
    );
    ({ owner, orgId } = await web.t.createOrg('Ops Co'));
    await updateOrgPlan(
      web.t.store.db,
      orgId,
      { plan: 'enterprise', rate_limit_per_minute: null, rate_limit_per_hour: null },
      new Date(),
    );
    projectId = (await owner.post('/api/v1/projects', { name: 'Billing' })).body.id;
    for (const [name, url, environment] of [
      ['target', target.url, 'development'],
      ['production', target.url, 'production'],
    ] as const) {
      const created = await owner.post(
        '/api/v1/connections',
        connectionBody(projectId, url, { name, environment }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids[name] = created.body.id;
    }
    ownerPage = await openPage(browser, web.base);
    await signIn(ownerPage.page, owner.user.email);
    await ownerPage.page.getByRole('heading', { name: 'Projects' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await source?.drop();
    await target?.drop();
  });

  it('adds a connection through the form, tests it, browses its live schema, and edits it', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: 'Connections' }).waitFor();
    await page.getByRole('button', { name: 'Add connection' }).click();
    const url = new URL(source.url);
    const form = page.getByRole('form', { name: 'New connection' });
    await form.getByLabel('Name', { exact: true }).fill('source');
    await form.getByLabel('Host').fill(url.hostname);
    await form.getByLabel('Port').fill(url.port);
    await form.getByLabel('Database').fill(source.name);
    await form.getByLabel('User name').fill(decodeURIComponent(url.username));
    await form.getByRole('button', { name: 'Save connection' }).click();
    const row = page.getByTestId('connection-source');
    await row.waitFor();
    await row.getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => row.getByRole('status').textContent()).toMatch(/^Connected in \d+ ms/);
    await row.getByRole('button', { name: 'Schema' }).click();
    await row.locator('summary', { hasText: 'public.items' }).click();
    await row.getByRole('cell', { name: 'name', exact: true }).waitFor();
    ids.source = (await owner.get(`/api/v1/connections?project_id=${projectId}`)).body.items.find(
      (c: { name: string }) => c.name === 'source',
    ).id;

    // A wrong database name: the classified cause next to the button.
    await page.getByRole('button', { name: 'Add connection' }).click();
    await form.getByLabel('Name', { exact: true }).fill('broken');
    await form.getByLabel('Host').fill(url.hostname);
    await form.getByLabel('Port').fill(url.port);
    await form.getByLabel('Database').fill('no_such_database_here');
    await form.getByLabel('User name').fill(decodeURIComponent(url.username));
    await form.getByRole('button', { name: 'Save connection' }).click();
    const broken = page.getByTestId('connection-broken');
    await broken.getByRole('button', { name: 'Test' }).click();
    await expect
      .poll(() => broken.getByRole('alert').textContent())
      .toMatch(/^The database does not exist: /);
    await captureBothWidths(page, 'connections');

    // Mended after saving: renamed, pointed at the right database, the (write-only) password kept.
    const brokenId = (await owner.get(`/api/v1/connections?project_id=${projectId}`)).body.items.find(
      (c: { name: string }) => c.name === 'broken',
    ).id;
    await owner.patch(`/api/v1/connections/${brokenId}`, { password: 'kept-secret' });
    await broken.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit connection broken' });
    expect(await edit.getByLabel('Database').inputValue()).toBe('no_such_database_here');
    expect(await edit.getByLabel('Password').inputValue()).toBe('');
    expect(await edit.getByLabel('Engine').isDisabled()).toBe(true);
    await edit.getByLabel('Name', { exact: true }).fill('mended');
    await edit.getByLabel('Database').fill(source.name);
    await edit.getByLabel('Environment').selectOption('staging');
    // Another database moves the connection: the form says the password is needed again, and the
    // API's refusal without it is shown at the password field.
    await edit.getByText('type its password again').waitFor();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(() => edit.getByRole('alert').textContent())
      .toMatch(/changing database needs the password in the same request/);
    expect(await edit.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await edit.getByLabel('Password').fill('kept-secret');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const mended = page.getByTestId('connection-mended');
    await mended.getByText('staging').waitFor();
    await mended.getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => mended.getByRole('status').textContent()).toMatch(/^Connected in \d+ ms/);
    const saved = (await owner.get(`/api/v1/connections/${brokenId}`)).body;
    expect([saved.name, saved.database, saved.environment, saved.has_password]).toEqual([
      'mended',
      source.name,
      'staging',
      true,
    ]);
    // A wrong port is refused with the API's detail next to the form, which stays open.
    await mended.getByRole('button', { name: 'Edit' }).click();
    const again = page.getByRole('form', { name: 'Edit connection mended' });
    await again.getByLabel('Host').fill('');
    await again.getByLabel('Host').fill('169.254.169.254');
    await again.getByRole('button', { name: 'Save changes' }).click();
    await again.getByRole('alert').waitFor();
    await again.getByRole('button', { name: 'Cancel' }).click();
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    problems.length = 0;
    // Out of the way of the drift page and the pickers.
    expect((await owner.delete(`/api/v1/connections/${brokenId}`)).status).toBe(204);
  });

  it('compares, edits and applies a migration with the double confirmation', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Migrations' }).click();
    await page.getByLabel('Source (the reference)').selectOption(ids.source!);
    await page.getByLabel('Target (to change)').selectOption(ids.target!);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/migrations\/[0-9a-f-]{36}$/);
    const statements = page.getByRole('list', { name: 'Statements', exact: true });
    await expect
      .poll(() => statements.locator('code').first().textContent())
      .toMatch(/DROP COLUMN "legacy"/i);
    await statements.getByText('destroys data').waitFor();

    // Edit: add an index; saving re-parses and re-lints.
    const editor = page.getByRole('textbox', { name: 'Migration SQL' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('\nCREATE INDEX "items_name_idx" ON "public"."items" ("name");');
    await page.getByRole('button', { name: 'Save and re-lint' }).click();
    await expect.poll(() => statements.locator('li').count()).toBe(2);
    await captureBothWidths(page, 'migration-review');

    await page.getByRole('button', { name: 'Apply…' }).click();
    const confirm = page.getByRole('form', { name: 'Confirm apply' });
    const apply = confirm.getByRole('button', { name: 'Apply migration' });
    expect(await apply.isDisabled()).toBe(true);
    await confirm.getByLabel('I understand that this is irreversible').check();
    await confirm.getByLabel(/Type the target's name/).fill('targe');
    expect(await apply.isDisabled()).toBe(true);
    await confirm.getByLabel(/Type the target's name/).fill('target');
    await apply.click();
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    await expect.poll(() => page.locator('.page-head .status').textContent()).toBe('applied');

    const columns = await onTarget<{ column_name: string }>(
      target.url,
      "select column_name from information_schema.columns where table_name = 'items' order by 1",
    );
    expect(columns.map((c) => c.column_name)).toEqual(['id', 'name']);
    const indexes = await onTarget<{ indexname: string }>(
      target.url,
      "select indexname from pg_indexes where tablename = 'items'",
    );
    expect(indexes.map((i) => i.indexname)).toContain('items_name_idx');

    expect(problems).toEqual([]);
  });

  it('applies an additive migration and rolls it back from its page', async () => {
    const { page, problems } = ownerPage;
    // The source gains a column (and the index the last migration gave the target): one additive statement.
    await onTarget(
      source.url,
      'alter table items add column note text; create index items_name_idx on items (name)',
    );
    await page.getByRole('link', { name: 'Migrations' }).click();
    await page.getByLabel('Source (the reference)').selectOption(ids.source!);
    await page.getByLabel('Target (to change)').selectOption(ids.target!);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/migrations\/[0-9a-f-]{36}$/);
    await expect
      .poll(() =>
        page.getByRole('list', { name: 'Statements', exact: true }).locator('code').allTextContents(),
      )
      .toEqual([expect.stringMatching(/ADD COLUMN "note"/i)]);
    await page.getByRole('button', { name: 'Apply…' }).click();
    await page
      .getByRole('form', { name: 'Confirm apply' })
      .getByRole('button', { name: 'Apply migration' })
      .click();
    await expect
      .poll(() => page.locator('.page-head .status').textContent(), { timeout: 20_000 })
      .toBe('applied');
    const columns = async () =>
      (
        await onTarget<{ column_name: string }>(
          target.url,
          "select column_name from information_schema.columns where table_name = 'items' order by 1",
        )
      ).map((c) => c.column_name);
    expect(await columns()).toEqual(['id', 'name', 'note']);

    // Its rollback drops the added column: the double confirmation again.
    await page.getByRole('button', { name: 'Roll back…' }).click();
    const rollback = page.getByRole('form', { name: 'Confirm rollback' });
    await rollback.getByLabel('I understand that this is irreversible').check();
    await rollback.getByLabel(/Type the target's name/).fill('target');
    await rollback.getByRole('button', { name: 'Roll back migration' }).click();
    await expect.poll(() => run(page).locator('strong').textContent()).toBe('migration rollback');
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    await expect.poll(() => page.locator('.page-head .status').textContent()).toBe('rolled back');
    expect(await columns()).toEqual(['id', 'name']);
    await onTarget(source.url, 'alter table items drop column note; drop index items_name_idx');
    expect(problems).toEqual([]);
  });

  it('dry-runs a patch with rows before and after, executes it, and rolls it back', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Patches' }).click();
    await page.getByLabel('Title').fill('Rename the first two');
    await page.getByLabel('Connection').selectOption(ids.target!);
    await page.getByRole('textbox', { name: 'Patch SQL' }).click();
    await page.keyboard.type('UPDATE items SET name = upper(name) WHERE id <= 2');
    await page.getByRole('button', { name: 'Create patch' }).click();
    await page.waitForURL(/\/patches\/[0-9a-f-]{36}$/);

    await page.getByRole('button', { name: 'Dry-run' }).click();
    await page.getByRole('heading', { name: 'Dry-run: 2 rows would change' }).waitFor();
    await page.getByRole('cell', { name: 'ONE', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'one', exact: true }).waitFor();
    expect(await page.getByLabel('Expected rows').inputValue()).toBe('2');
    await captureBothWidths(page, 'patch-dry-run');
    expect(
      (await onTarget<{ name: string }>(target.url, 'select name from items order by id'))[0]!.name,
    ).toBe('one');

    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    expect(
      (await onTarget<{ name: string }>(target.url, 'select name from items order by id')).map((r) => r.name),
    ).toEqual(['ONE', 'TWO', 'three']);

    // A row changed after the patch: the rollback refuses and names it; forcing restores anyway.
    await onTarget(target.url, "update items set name = 'changed' where id = 1");
    await page.getByRole('button', { name: 'Roll back' }).click();
    await expect.poll(() => run(page).locator('strong').textContent()).toBe('patch rollback');
    const conflicts = page.getByRole('region', { name: 'Rollback conflicts' });
    await conflicts.getByText(/items: .*"id":1/).waitFor({ timeout: 20_000 });
    expect(
      (await onTarget<{ name: string }>(target.url, 'select name from items order by id')).map((r) => r.name),
    ).toEqual(['changed', 'TWO', 'three']);
    await conflicts.getByRole('button', { name: 'Force the rollback' }).click();
    await expect.poll(() => conflicts.count()).toBe(0);
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    expect(
      (await onTarget<{ name: string }>(target.url, 'select name from items order by id')).map((r) => r.name),
    ).toEqual(['one', 'two', 'three']);
    expect(problems).toEqual([]);
  });

  it('waits for an approval on a protected connection; a second user approves it in the inbox', async () => {
    const { page } = ownerPage;
    await page.getByRole('link', { name: 'Patches' }).click();
    await page.getByLabel('Title').fill('Fix three');
    await page.getByLabel('Connection').selectOption(ids.production!);
    await page.getByRole('textbox', { name: 'Patch SQL' }).click();
    await page.keyboard.type("UPDATE items SET name = 'drei' WHERE id = 3");
    await page.getByRole('button', { name: 'Create patch' }).click();
    await page.waitForURL(/\/patches\/[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => run(page).getAttribute('data-status')).toBe('awaiting_approval');

    const admin = await web.t.createUser(orgId, 'admin');
    const reviewer = await openPage(browser, web.base, 390);
    await signIn(reviewer.page, admin.user.email);
    await reviewer.page.getByRole('link', { name: 'Billing' }).click();
    const badge = reviewer.page.getByTestId('badge-pending-approvals');
    await expect.poll(() => badge.textContent()).toMatch(/^1/);
    await reviewer.page.getByRole('link', { name: /Approvals/ }).click();
    const item = reviewer.page.getByTestId('approval');
    await item.getByLabel('Comment').fill('Looks right');
    await captureBothWidths(reviewer.page, 'approvals');
    await item.getByRole('button', { name: 'Approve' }).click();
    await reviewer.page.getByText('No pending approvals.').waitFor();
    await expect.poll(() => badge.count()).toBe(0);

    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    expect(
      (await onTarget<{ name: string }>(target.url, 'select name from items where id = 3'))[0]!.name,
    ).toBe('drei');
    expect(reviewer.problems).toEqual([]);
  });

  it('cancels a run that waits for its approval', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Patches' }).click();
    await page.getByLabel('Title').fill('Never mind');
    await page.getByLabel('Connection').selectOption(ids.production!);
    await page.getByRole('textbox', { name: 'Patch SQL' }).click();
    await page.keyboard.type("UPDATE items SET name = 'x' WHERE id = 1");
    await page.getByRole('button', { name: 'Create patch' }).click();
    await page.waitForURL(/\/patches\/[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => run(page).getAttribute('data-status')).toBe('awaiting_approval');
    await run(page).getByRole('button', { name: 'Cancel run' }).click();
    await expect.poll(() => run(page).getAttribute('data-status')).toBe('cancelled');
    expect(await run(page).getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    expect(
      (await onTarget<{ name: string }>(target.url, 'select name from items where id = 1'))[0]!.name,
    ).toBe('one');
    expect(problems).toEqual([]);
  });

  it('copies a table picked from the live schema to another connection and shows the rows per table', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: 'Bridge' }).click();
    const form = page.getByRole('form', { name: 'Copy tables' });
    await form.getByLabel('From').selectOption(ids.target!);
    await form.getByLabel('To').selectOption(ids.source!);
    await form.getByRole('checkbox', { name: 'public.items' }).check();
    await form.getByRole('button', { name: 'Start copy' }).click();
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    const result = page.getByTestId('copy-result');
    await result.getByRole('cell', { name: '3', exact: true }).waitFor();
    await captureBothWidths(page, 'bridge');
    const copied = await onTarget<{ id: number; name: string }>(
      source.url,
      'select id, name from items order by id',
    );
    expect(copied).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
      { id: 3, name: 'drei' },
    ]);

    // Which rows: a filter on the ticked table, then a subset started from one row.
    const copiedIds = async () =>
      (await onTarget<{ id: number }>(source.url, 'select id from items order by id')).map((r) => r.id);
    await form.getByLabel('Filter of public.items').fill('id <> 2');
    await form.getByRole('button', { name: 'Start copy' }).click();
    await expect.poll(copiedIds, { timeout: 20_000 }).toEqual([1, 3]);
    await form.getByLabel('Filter of public.items').fill('');
    await form.getByLabel('Start table').selectOption('public.items');
    await form.getByLabel('Start rows where').fill('id = 2');
    await form.getByLabel('Percent of them').fill('100');
    await form.getByRole('button', { name: 'Start copy' }).click();
    await expect.poll(copiedIds, { timeout: 20_000 }).toEqual([2]);
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    expect(problems).toEqual([]);
  });

  it('anonymizes with a rule picked from the schema: PII scan, preview, run', async () => {
    const { page, problems } = ownerPage;
    await onTarget(
      source.url,
      "create table customers (id int primary key, email text not null, full_name text); insert into customers values (1, 'ann@corp.example', 'Ann Lee'), (2, 'bob@corp.example', 'Bob Stone')",
    );
    await page.getByRole('link', { name: 'Anonymize' }).click();
    const form = page.getByRole('form', { name: 'New anonymization config' });
    await form.getByLabel('Config name').fill('mask customers');
    await form.getByLabel('Connection').selectOption(ids.source!);
    await form.getByRole('button', { name: 'Add rule' }).click();
    const rule = form.getByRole('group', { name: 'Rule 1' });
    await rule.getByLabel('Table').selectOption('public.customers');
    await rule.getByLabel('Column').selectOption('email');
    await rule.getByLabel('Transformer').selectOption('fake');
    await rule.getByLabel('Options (JSON)').fill('{"kind": "email"}');
    await form.getByRole('button', { name: 'Save config' }).click();
    const detail = page.getByRole('region', { name: 'Config mask customers' });
    await detail.waitFor();

    await detail.getByRole('button', { name: 'Scan for personal data' }).click();
    const scan = detail.getByTestId('pii-scan');
    await scan.getByRole('row', { name: /customers\.email .* yes$/ }).waitFor();
    await scan.getByRole('row', { name: /customers\.full_name .* no$/ }).waitFor();
    await detail.getByRole('button', { name: 'Preview' }).click();
    await detail.getByRole('cell', { name: 'ann@corp.example' }).waitFor();
    await captureBothWidths(page, 'anonymize');

    await detail.getByRole('button', { name: 'Run anonymization' }).click();
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    const rows = await onTarget<{ email: string; full_name: string }>(
      source.url,
      'select email, full_name from customers order by id',
    );
    expect(rows.map((r) => r.email)).not.toContain('ann@corp.example');
    expect(rows.every((r) => /@/.test(r.email))).toBe(true);
    expect(rows.map((r) => r.full_name)).toEqual(['Ann Lee', 'Bob Stone']);

    // The saved rules edited afterwards: one more column covered, the first rule kept as it was.
    await detail.getByRole('button', { name: 'Edit rules' }).click();
    const edit = detail.getByRole('form', { name: 'Rules of mask customers' });
    expect(
      await edit.getByRole('group', { name: 'Rule 1' }).getByLabel('Options (JSON)').inputValue(),
    ).toMatch(/"kind":"email"/);
    await edit.getByRole('button', { name: 'Add rule' }).click();
    const added = edit.getByRole('group', { name: 'Rule 2' });
    await added.getByLabel('Table').selectOption('public.customers');
    await added.getByLabel('Column').selectOption('full_name');
    await added.getByLabel('Transformer').selectOption('redact');
    await edit.getByRole('button', { name: 'Save rules' }).click();
    await detail.getByText(/customers\.full_name: redact/).waitFor();
    const configId = (await owner.get(`/api/v1/anonymize/configs?project_id=${projectId}`)).body.items[0].id;
    const saved = (await owner.get(`/api/v1/anonymize/configs/${configId}`)).body.rules;
    expect(saved.map((r: { column: string; transformer: string }) => `${r.column}:${r.transformer}`)).toEqual(
      ['email:fake', 'full_name:redact'],
    );
    expect(problems).toEqual([]);
  });

  it('seeds a table picked from the schema: preview, then a run that writes the rows', async () => {
    const { page, problems } = ownerPage;
    await onTarget(
      source.url,
      'create table people (id int primary key, email text not null, first_name text)',
    );
    await page.getByRole('link', { name: 'Seeds' }).click();
    const form = page.getByRole('form', { name: 'New seed scenario' });
    await form.getByLabel('Scenario name').fill('people');
    await form.getByLabel('Connection').selectOption(ids.source!);
    await form.getByLabel('Seed', { exact: true }).fill('7');
    await form.getByLabel('public.people').fill('25');
    // One column's generator chosen by hand; the others stay inferred. Bad options are named.
    await form.getByLabel('Generator of first_name').selectOption('constant');
    await form.getByLabel('Options of first_name (JSON)').fill('{value: Zed}');
    await form.getByRole('button', { name: 'Save scenario' }).click();
    expect(await form.getByRole('alert').textContent()).toMatch(
      /^public\.people\.first_name: .*not valid JSON/,
    );
    await form.getByLabel('Options of first_name (JSON)').fill('{"value": "Zed"}');
    await form.getByRole('button', { name: 'Save scenario' }).click();
    const detail = page.getByRole('region', { name: 'Scenario people' });
    await detail.getByRole('button', { name: 'Preview rows' }).click();
    await expect.poll(() => detail.locator('tbody tr').count()).toBe(10);
    expect(await detail.locator('tbody tr').first().locator('td').nth(1).textContent()).toMatch(/@/);
    await captureBothWidths(page, 'seeds');
    await detail.getByRole('button', { name: 'Run seed' }).click();
    await expect.poll(() => run(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    const counted = await onTarget<{ count: string }>(source.url, 'select count(*) from people');
    expect(Number(counted[0]?.count)).toBe(25);
    const names = await onTarget<{ first_name: string }>(
      source.url,
      'select distinct first_name from people',
    );
    expect(names).toEqual([{ first_name: 'Zed' }]);
    expect(problems).toEqual([]);
  });

  it('shows runs with their progress in the list and the indicator', async () => {
    const { page } = ownerPage;
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThanOrEqual(4);
    expect(await page.getByTestId('runs-indicator').textContent()).toBe('No runs active');
    await page.getByRole('link', { name: 'migration apply' }).first().click();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    await captureBothWidths(page, 'run');
  });

  it('raises the drift badge after an out-of-band ALTER TABLE and a check, and clears it on acknowledge', async () => {
    const { page, problems } = ownerPage;
    await page.getByRole('link', { name: /^Drift/ }).click();
    const section = page.getByRole('region', { name: 'Drift of target' });
    await section.getByText(/baseline/).waitFor(); // the first visit takes the baseline
    await onTarget(target.url, 'alter table items drop column name');
    await section.getByRole('button', { name: 'Check now' }).click();
    await section.getByTestId('drift-report').waitFor();
    await section.getByText('column removed name').waitFor();
    const badge = page.getByTestId('badge-open-drift-reports');
    await expect.poll(() => badge.textContent()).toMatch(/^1/);
    await captureBothWidths(page, 'drift');

    await section.getByLabel('Comment').fill('Dropped on purpose');
    await section.getByRole('button', { name: 'Acknowledge' }).click();
    await section.getByText(/Acknowledged/).waitFor();
    await expect.poll(() => badge.count()).toBe(0);

    // The snapshots, newest first: the acknowledged report's snapshot is now the only baseline.
    await section.getByRole('button', { name: 'Snapshots' }).click();
    const snapshots = section.getByRole('region', { name: 'Snapshots of target' });
    const rows = snapshots.locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBeGreaterThanOrEqual(2);
    expect(await rows.first().locator('td').nth(2).textContent()).toBe('baseline');
    expect(await snapshots.getByRole('cell', { name: 'baseline', exact: true }).count()).toBe(1);
    await captureBothWidths(page, 'drift-snapshots');
    expect(problems).toEqual([]);
  });
});
