// docs/architecture.md: modules use target databases through the dialect interface and never branch on an
// engine's name; a difference is a method or a capability of the dialect. This reads the modules'
// sources and fails naming each comparison with an engine or flavour name that creeps back in.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULES = join(import.meta.dirname, '..', 'modules');
const NAME = `'(?:postgresql|mysql|mariadb)'`;
const BRANCH = new RegExp(`(?:[!=]==\\s*${NAME}|${NAME}\\s*[!=]==|case\\s+${NAME}\\s*:)`);

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('modules are dialect-neutral', () => {
  it('no module source compares with an engine name', async () => {
    const found: string[] = [];
    for (const file of await sources(MODULES)) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (BRANCH.test(line)) found.push(`${file.slice(MODULES.length + 1)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('the check itself catches a branch', () => {
    expect(BRANCH.test("if (dialect === 'mysql') return;")).toBe(true);
    expect(BRANCH.test("flavor !== 'mariadb'")).toBe(true);
    expect(BRANCH.test("  case 'postgresql':")).toBe(true);
    expect(BRANCH.test("dialect: StringEnum(['postgresql', 'mysql'] as const),")).toBe(false);
  });
});
