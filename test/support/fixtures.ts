// The repository's own test fixtures (test/fixtures/): schemas written for these tests, always
// present, unlike the external corpus of ./corpus.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const fixturesDir = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The text of test/fixtures/<parts…>. */
export function readFixture(...parts: string[]): string {
  return readFileSync(new URL(parts.join('/'), `file://${fixturesDir}`), 'utf8');
}
