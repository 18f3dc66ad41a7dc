// The screenshots of docs/screenshots, made from the browser tests so that they cannot go stale: the
// suites that take them (test/web/, each page checked at 1280 and 390 px, written to var/screenshots)
// run first, then the pictures below are copied over the documentation's. Nothing else is kept in
// docs/screenshots, and every picture the README shows must be one of them.
//   npm run screenshots
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const TAKEN = path.join(ROOT, 'var/screenshots');
const DOCS = path.join(ROOT, 'docs/screenshots');

/** docs/screenshots/<name>.png ← var/screenshots/<taken>.png (a page and the width it was taken at). */
const PICTURES: Record<string, string> = {
  'migration-review': 'migration-review-desktop',
  'patch-dry-run': 'patch-dry-run-desktop',
  'drift-phone': 'drift-phone',
  bridge: 'bridge-desktop',
  seeds: 'seeds-desktop',
  anonymize: 'anonymize-desktop',
  approvals: 'approvals-phone',
  members: 'members-desktop',
  organization: 'organization-desktop',
};
/** The suites whose pages are pictured. */
const SUITES = ['test/web/operations.test.ts', 'test/web/admin.test.ts'];

// The docs show only pictures this script makes (the README and docs/*.md).
const documents = [
  path.join(ROOT, 'README.md'),
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(ROOT, 'docs', name)),
];
const shown = documents
  .flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/screenshots\/([\w-]+)\.png/g)])
  .map((match) => match[1]!)
  .filter((name) => !(name in PICTURES));
if (shown.length > 0) fail(`The docs show pictures this script does not make: ${shown.join(', ')}`);

// Taken afresh: a picture left from an earlier run must not pass for a new one.
for (const taken of Object.values(PICTURES)) fs.rmSync(path.join(TAKEN, `${taken}.png`), { force: true });
const run = spawnSync('npx', ['vitest', 'run', ...SUITES], { cwd: ROOT, stdio: 'inherit' });
if (run.status !== 0) fail(`the browser tests failed (exit ${run.status}): no picture was changed`);

const missing = Object.values(PICTURES).filter((taken) => !fs.existsSync(path.join(TAKEN, `${taken}.png`)));
if (missing.length > 0) fail(`the browser tests took no ${missing.join(', ')} (were they skipped?)`);
fs.mkdirSync(DOCS, { recursive: true });
for (const file of fs.readdirSync(DOCS))
  if (!(path.basename(file, '.png') in PICTURES)) fs.rmSync(path.join(DOCS, file));
for (const [name, taken] of Object.entries(PICTURES))
  fs.copyFileSync(path.join(TAKEN, `${taken}.png`), path.join(DOCS, `${name}.png`));
console.log(`docs/screenshots: ${Object.keys(PICTURES).length} pictures from ${SUITES.join(', ')}`);

function fail(message: string): never {
  console.error(`docs-screenshots: ${message}`);
  process.exit(1);
}
