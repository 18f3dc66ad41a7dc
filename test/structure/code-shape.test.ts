// The shape the code keeps, held by test so that later work keeps it too. Each rule reads the
// source as text: what it forbids is written the same way wherever it appears.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every TypeScript source under `dir` (tests apart unless asked), relative to the repository. */
function sources(dir: string, { tests = false } = {}): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && (tests || !/\.test\.tsx?$/.test(entry.name)))
        out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** `file:line: text` of every line of the files that matches. */
function linesMatching(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

/** The files whose text matches, each once. */
function filesMatching(files: string[], pattern: RegExp): string[] {
  return files.filter((file) => pattern.test(readFileSync(join(ROOT, file), 'utf8')));
}

describe('the shape of the code', () => {
  it('has no double cast in the modules: their types say what the values are', () => {
    expect(linesMatching(sources('src/modules'), /\bas unknown as\b/)).toEqual([]);
  });

  it('reaches a dialect through a handle or the connections service, never by its name', () => {
    // The dialect maps are imported where a process builds its target access, and nowhere else in
    // the modules: a handle answers `handle.sql`, the connections service `dialectOf(connection)`.
    const importsMaps =
      /import\s*\{[^}]*\b(dialects|migrationDialects)\b[^}]*\}\s*from\s*'[^']*dialects\/index\.ts'/;
    expect(filesMatching(sources('src/modules'), importsMaps)).toEqual([
      'src/modules/connections/target-access.ts',
    ]);
  });
});
