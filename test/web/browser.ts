// Browser tests of the web application: the real service (a test app on a throw-away store, runs
// worked for real) listening on a random loopback port, driven by Debian's Chromium through
// playwright-core. Screenshots go to var/screenshots/ (ignored by git), kept as test artifacts.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ensureWebBuild } from '../../src/web/web-build.ts';
import { createTestApp, TEST_PASSWORD, type TestApp, type TestAppOptions } from '../support/app.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../support/databases.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** As the machine allows it: no sandbox (root), no network beyond loopback. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../var/screenshots');
export const WIDTHS = { desktop: 1280, phone: 390 } as const;

export const chromiumAvailable = fs.existsSync(CHROMIUM);
if (!chromiumAvailable) {
  const message = `SKIPPED the browser tests of the web application: no Chromium at ${CHROMIUM} (apt-get install chromium)`;
  if (process.env.REQUIRE_DATABASES === '1') throw new Error(message);
  console.warn(message);
}

export interface WebApp {
  t: TestApp;
  base: string;
  close(): Promise<void>;
}

/** The service with the current build of web/ (built first when stale), on a random port. */
export async function startWebApp(options: TestAppOptions = {}): Promise<WebApp> {
  await ensureWebBuild();
  const t = await createTestApp({ work: true, ...options });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, base: `http://127.0.0.1:${port}`, close: () => t.close() };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions of the page, except the ones a test expects. */
  problems: string[];
}

/**
 * A fresh browser context (its own cookies) at the given width. Console errors are collected; the
 * 401 of the first `GET /auth/me` before signing in is the only expected one.
 */
export async function openPage(
  browser: Browser,
  base: string,
  width: number = WIDTHS.desktop,
): Promise<TestPage> {
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (/status of 401/.test(text) && message.location().url.endsWith('/api/v1/auth/me')) return;
    problems.push(`${text} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, context, problems };
}

export async function signIn(page: Page, email: string, password = TEST_PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

let axeSource: string | undefined;

/** axe-core in the page: the violations of impact serious or critical (none expected). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  axeSource ??= fs.readFileSync(
    path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'),
    'utf8',
  );
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an inline script would be refused).
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (context: Document) => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).join(', ')}`);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/** The page at both widths, saved as artifacts, each checked with axe and for its layout. */
export async function captureBothWidths(page: Page, name: string): Promise<void> {
  await checkBothWidths(page, name, async (label) => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
  });
}

/**
 * The page at 1280 and 390 px: no serious accessibility violation (axe), nothing that makes the page
 * itself scroll sideways (wide tables scroll inside their own box), and no form field or button
 * sticking out of the card it sits in. `each` runs at each width first (a screenshot).
 */
export async function checkBothWidths(
  page: Page,
  name: string,
  each?: (label: keyof typeof WIDTHS) => Promise<void>,
): Promise<void> {
  for (const [label, width] of Object.entries(WIDTHS) as [keyof typeof WIDTHS, number][]) {
    await page.setViewportSize({ width, height: 900 });
    await each?.(label);
    expect(await seriousA11yViolations(page), `${name} at ${width}px`).toEqual([]);
    const wide = await page.evaluate(() => {
      const limit = document.documentElement.clientWidth;
      const describe = (element: Element) => `${element.tagName.toLowerCase()}.${element.className}`;
      const beyond = (element: Element | null) =>
        !!element && element.getBoundingClientRect().right > limit + 1;
      // The outermost elements that reach beyond the page: where the widening starts.
      const culprits = [...document.querySelectorAll('body *')]
        .filter((element) => beyond(element) && !beyond(element.parentElement))
        .filter((element) => !element.parentElement?.closest('.table-scroll'))
        .slice(0, 3)
        .map(describe);
      const outOfCard = [
        ...document.querySelectorAll('.card input, .card select, .card textarea, .card button'),
      ]
        .filter((element) => {
          const card = element.closest('.card')!;
          if (element.closest('.table-scroll')) return false;
          return element.getBoundingClientRect().right > card.getBoundingClientRect().right + 1;
        })
        .slice(0, 3)
        .map(describe);
      return { overflow: document.documentElement.scrollWidth - limit, culprits, outOfCard };
    });
    const why = `${name} at ${width}px is too wide because of ${wide.culprits.join(', ')}`;
    expect(wide.overflow, why).toBeLessThanOrEqual(0);
    expect(wide.outOfCard, `${name} at ${width}px: fields out of their card`).toEqual([]);
  }
  await page.setViewportSize({ width: WIDTHS.desktop, height: 900 });
}

/** The app, Chromium and two new PostgreSQL databases, started together, for a suite that works on targets. */
export async function startWithTwoTargets(
  suite: string,
): Promise<{ web: WebApp; browser: Browser; source: TestPgDatabase; target: TestPgDatabase }> {
  const [web, browser, source, target] = await Promise.all([
    startWebApp(),
    launchBrowser(),
    createTestPgDatabase(),
    createTestPgDatabase(),
  ]);
  if (!source || !target) throw new Error(`the browser tests of ${suite} need the test PostgreSQL server`);
  return { web, browser, source, target };
}
