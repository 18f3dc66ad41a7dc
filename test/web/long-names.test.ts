// The web application as a person meets it, in Chromium against real PostgreSQL, with every name
// at the accepted maximum (100 characters, without a space to break at): each main page at 1280 and
// 390 px without sideways scrolling, axe-clean, with no field outside its card; on a phone the page's
// content starts near the top; the sign-in page logs nothing to the console; the Copy page offers the
// anonymization configs, lists past copies and suggests filters on real columns; and everything made
// is deleted again from the app, each after a confirmation naming what goes with it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOrgPlan } from '../../src/modules/billing/billing.repo.ts';
import type { Client } from '../support/app.ts';
import { connectionBody } from '../support/connections.ts';
import type { TestPgDatabase } from '../support/databases.ts';
import { queryPostgres as onTarget } from '../support/target-query.ts';
import {
  captureBothWidths,
  checkBothWidths,
  chromiumAvailable,
  openPage,
  signIn,
  startWithTwoTargets,
  type TestPage,
  type WebApp,
} from './browser.ts';

/** A name of exactly 100 characters and no space, that starts with `start`. */
const longName = (start: string) => `${start}-${'Quarterly_reconciliation_'.repeat(4)}`.slice(0, 100);

describe.skipIf(!chromiumAvailable)(
  'web application: long names, and nothing left behind',
  { timeout: 120_000 },
  () => {
    let web: WebApp;
    let browser: Browser;
    let owner: Client;
    let projectId: string;
    let source: TestPgDatabase;
    let target: TestPgDatabase;
    let ownerPage: TestPage;
    const names = {
      project: longName('Project'),
      source: longName('Source'),
      target: longName('Target'),
      patch: longName('Patch'),
      scenario: longName('Scenario'),
      config: longName('Config'),
    };
    const ids: Record<string, string> = {};
    const project = (path: string) => `/projects/${projectId}/${path}`;

    beforeAll(async () => {
      ({ web, browser, source, target } = await startWithTwoTargets('long names'));
      await onTarget(
        source.url,
        "create table items (id int primary key, name text not null); insert into items values (1, 'one'), (2, 'two')",
      );
      let orgId: string;
      ({ owner, orgId } = await web.t.createOrg(longName('Organization')));
      await updateOrgPlan(
        web.t.store.db,
        orgId,
        { plan: 'enterprise', rate_limit_per_minute: null, rate_limit_per_hour: null },
        new Date(),
      );
      projectId = (await owner.post('/api/v1/projects', { name: names.project })).body.id;
      for (const which of ['source', 'target'] as const) {
        const url = which === 'source' ? source.url : target.url;
        const created = await owner.post(
          '/api/v1/connections',
          connectionBody(projectId, url, { name: names[which] }),
        );
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        ids[which] = created.body.id;
      }
      const made = await Promise.all([
        owner.post('/api/v1/patches', {
          project_id: projectId,
          connection_id: ids.source,
          title: names.patch,
          sql: "UPDATE items SET name = 'uno' WHERE id = 1",
        }),
        owner.post('/api/v1/seed/scenarios', {
          project_id: projectId,
          connection_id: ids.source,
          name: names.scenario,
          seed: 1,
          definition: { tables: [{ table: 'public.items', rows: 5 }] },
        }),
        owner.post('/api/v1/anonymize/configs', {
          project_id: projectId,
          connection_id: ids.source,
          name: names.config,
          rules: [
            { table: 'public.items', column: 'name', transformer: 'constant', options: { value: 'hidden' } },
          ],
        }),
        owner.post(`/api/v1/projects/${projectId}/migrations/compare`, {
          source_connection_id: ids.source,
          target_connection_id: ids.target,
        }),
      ]);
      for (const answer of made) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      for (const [index, key] of ['patch', 'scenario', 'config'].entries()) ids[key] = made[index]!.body.id;
      // A run waits for its approval: counted on the home card, listed among the runs.
      const policy = await owner.put(`/api/v1/projects/${projectId}/policy`, {
        rules: [
          {
            operation: 'seed_run',
            environments: ['development'],
            required_approvals: 1,
            allow_self_approval: false,
          },
        ],
      });
      expect(policy.status).toBe(200);
      expect((await owner.post(`/api/v1/seed/scenarios/${ids.scenario}/run`)).status).toBe(202);
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

    it('signs in without a console error and says on the home card what waits, in words', async () => {
      const visitor = await openPage(browser, web.base, 390);
      const logged: string[] = [];
      visitor.page.on('console', (message) => {
        if (message.type() === 'error') logged.push(message.text());
      });
      await visitor.page.goto('/login');
      await visitor.page.getByLabel('E-mail').waitFor();
      await visitor.page.goto('/');
      await visitor.page.waitForURL(/\/login/);
      await visitor.page.getByLabel('E-mail').waitFor();
      await checkBothWidths(visitor.page, 'login');
      expect(logged).toEqual([]);
      await visitor.context.close();

      // An approval waits (made before all): the card says so in words, not as a bare number.
      const { page } = ownerPage;
      await page.reload();
      const card = page.getByRole('listitem').filter({ hasText: names.project });
      await expect.poll(() => card.locator('.counts').textContent()).toBe('1 pending approval');
      await captureBothWidths(page, 'long-home');
    });

    it('lays out every main page at both widths with 100-character names', async () => {
      const { page, problems } = ownerPage;
      const pages: [string, string, string][] = [
        ['connections', 'Connections', 'Connections'],
        ['drift', 'Drift', 'Drift'],
        ['migrations', 'Migrations', 'Migrations'],
        ['patches', 'Patches', 'Patches'],
        [`patches/${ids.patch}`, names.patch, 'patch'],
        ['bridge', 'Bridge: copy between connections', 'bridge'],
        ['seeds', 'Seed scenarios', 'seeds'],
        ['anonymize', 'Anonymization', 'anonymize'],
        ['approvals', 'Approvals', 'approvals'],
        ['access-requests', 'Access requests', 'access-requests'],
        ['policy', 'Approval policy', 'policy'],
        ['members', 'Members', 'members'],
        ['runs', 'Runs', 'runs'],
        ['webhooks', 'Webhooks', 'webhooks'],
      ];
      for (const [path, heading, name] of pages) {
        await page.goto(project(path));
        await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
        // What each page loads first is there before it is measured.
        await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
        if (path === 'drift')
          await page
            .getByRole('region', { name: `Drift of ${names.source}` })
            .getByText(/baseline/)
            .waitFor();
        if (path === 'seeds') await page.getByRole('button', { name: `Open ${names.scenario}` }).click();
        if (path === 'anonymize') await page.getByRole('button', { name: `Open ${names.config}` }).click();
        if (path === 'patches') await page.getByLabel('Connection').selectOption(ids.source!);
        await captureBothWidths(page, `long-${name}`);
      }
      for (const path of ['/organization', '/audit', '/profile', '/api-keys']) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
        await captureBothWidths(page, `long-${path.slice(1)}`);
      }

      // On a phone the header and the project's menu leave the page's content near the top.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(project('runs'));
      await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
      const contentTop = await page.locator('main.page').evaluate((main) => main.getBoundingClientRect().top);
      expect(contentTop).toBeLessThan(180);
      // The runs table fits the phone: nothing of it is hidden off to the side.
      const hidden = await page
        .locator('.table-scroll')
        .first()
        .evaluate((box) => box.scrollWidth - box.clientWidth);
      expect(hidden).toBeLessThanOrEqual(0);
      // The sidebar's drift link keeps its accessible name: "Drift", then the open reports.
      await page.getByRole('link', { name: /^Drift/ }).waitFor();
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(problems).toEqual([]);
    });

    it('copies with an anonymization config picked on the page, then lists the copy among the past ones', async () => {
      const { page, problems } = ownerPage;
      await page.goto(project('bridge'));
      const form = page.getByRole('form', { name: 'Copy tables' });
      await form.getByLabel('From').selectOption(ids.source!);
      await form.getByLabel('To').selectOption(ids.target!);
      await form.getByLabel('Create missing tables').check();
      await form.getByLabel('Anonymize with').selectOption({ label: names.config });
      await form.getByRole('checkbox', { name: 'public.items' }).check();
      // The example filter names a column the table has.
      expect(await form.getByLabel('Filter of public.items').getAttribute('placeholder')).toBe(
        'id IS NOT NULL',
      );
      await form.getByRole('button', { name: 'Start copy' }).click();
      await expect
        .poll(() => page.getByTestId('run-progress').getAttribute('data-status'), { timeout: 20_000 })
        .toBe('succeeded');
      const copied = await onTarget<{ name: string }>(target.url, 'select name from items order by id');
      expect(copied.map((row) => row.name)).toEqual(['hidden', 'hidden']);
      const past = page.getByRole('region', { name: 'Past copies' });
      await past.getByRole('cell', { name: 'succeeded' }).waitFor();
      expect(await past.getByRole('cell', { name: '2', exact: true }).count()).toBe(1);
      await captureBothWidths(page, 'long-bridge-after');
      expect(problems).toEqual([]);
    });

    it('deletes what was made, each after a confirmation that names what goes with it', async () => {
      const { page, problems } = ownerPage;
      const confirm = async (pageWith: Page, says: RegExp, button: string) => {
        const dialog = pageWith.getByRole('dialog');
        await dialog.waitFor();
        await expect.poll(() => dialog.textContent()).toMatch(says);
        await dialog.getByRole('button', { name: button, exact: true }).click();
        await dialog.waitFor({ state: 'detached' });
      };

      await page.goto(project('seeds'));
      const scenarioRow = page.getByRole('listitem').filter({ hasText: names.scenario });
      // Asked, then kept: nothing goes.
      await scenarioRow.getByRole('button', { name: 'Delete…' }).click();
      await captureBothWidths(page, 'delete-confirmation');
      await page.getByRole('dialog').getByRole('button', { name: 'Keep it' }).click();
      expect((await owner.get(`/api/v1/seed/scenarios/${ids.scenario}`)).status).toBe(200);
      await scenarioRow.getByRole('button', { name: 'Delete…' }).click();
      await confirm(page, /Its 1 table and their generators go with it/, 'Delete seed scenario');
      await page.getByText('No scenarios yet.').waitFor();
      expect((await owner.get(`/api/v1/seed/scenarios/${ids.scenario}`)).status).toBe(404);

      await page.goto(project('anonymize'));
      await page
        .getByRole('listitem')
        .filter({ hasText: names.config })
        .getByRole('button', { name: 'Delete…' })
        .click();
      await confirm(page, /Its 1 rule go with it/, 'Delete anonymization config');
      await page.getByText('No configs yet.').waitFor();
      expect((await owner.get(`/api/v1/anonymize/configs/${ids.config}`)).status).toBe(404);

      await page.goto(project(`patches/${ids.patch}`));
      await page.getByRole('button', { name: 'Delete…' }).click();
      await confirm(page, /an approval it waits for is voided/, 'Delete patch');
      await page.waitForURL(/\/patches$/);
      expect((await owner.get(`/api/v1/patches/${ids.patch}`)).status).toBe(404);

      await page.goto(project('connections'));
      await page.getByTestId(`connection-${names.target}`).getByRole('button', { name: 'Delete…' }).click();
      await confirm(page, /Its snapshots, drift reports, migrations, patches/, 'Delete connection');
      await page.getByTestId(`connection-${names.target}`).waitFor({ state: 'detached' });
      expect((await owner.get(`/api/v1/connections/${ids.target}`)).status).toBe(404);

      await page.goto('/');
      await page
        .getByRole('listitem')
        .filter({ hasText: names.project })
        .getByRole('button', { name: 'Delete…' })
        .click();
      await confirm(page, /Its 1 connection \(with their snapshots/, 'Delete project');
      await page.getByText('No projects yet').waitFor();
      expect((await owner.get(`/api/v1/projects/${projectId}`)).status).toBe(404);
      expect(problems).toEqual([]);
    });
  },
);
