// The shape the code keeps, held by test so that later work keeps it too. Each rule reads the
// source as text (what it forbids is written the same way wherever it appears), except the length
// of functions, which the TypeScript parser measures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stronglyConnectedComponents } from '../../src/engine/components.ts';

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

/** The relative imports of a file (type-only ones included), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*'(\.[^']+)'/gms)].map(
    (m) => m[1]!,
  );
  return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
}

/** The import cycles among `files`: each strongly connected group of two or more files. */
function importCycles(files: string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
  return stronglyConnectedComponents(files, edges)
    .filter((group) => group.length > 1)
    .map((group) => group.sort());
}

/**
 * Every function of `file` longer than `limit` lines of its own: its lines less those of the
 * functions nested in it (a nested function is measured apart), as `file:line name (n lines)`.
 */
function longFunctions(file: string, limit: number): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const span = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const hasBody = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
    ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (hasBody(node)) {
      let own = span(node);
      const subtractNested = (child: ts.Node) => {
        if (hasBody(child)) own -= span(child);
        else ts.forEachChild(child, subtractNested);
      };
      ts.forEachChild(node, subtractNested);
      if (own > limit) {
        const name = node.name?.getText(source) ?? '(anonymous)';
        found.push(`${file}:${lineOf(node.getStart(source)) + 1} ${name} (${own} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
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

  it('does not branch on a dialect name in the engine or the modules: what differs is a trait or capability', () => {
    // The engine reads EngineTraits (src/engine/schema/engine-traits.ts), the modules a handle's
    // capabilities: a comparison with a name, or a choice between two names, is neither.
    const branch =
      /[!=]==\s*'(mysql|postgresql|mariadb)'|case '(mysql|postgresql|mariadb)'|\? '(mysql|postgresql)' : '(mysql|postgresql)'/;
    expect(linesMatching([...sources('src/engine'), ...sources('src/modules')], branch)).toEqual([]);
  });

  it('has no function longer than 150 lines of its own', () => {
    const files = [...sources('src'), ...sources('web/src')];
    expect(files.flatMap((file) => longFunctions(file, 150))).toEqual([]);
  });

  it('writes runs only in the runs module: runs.start is the one way a run is made', () => {
    const writesRuns = /(insertInto|updateTable|deleteFrom)\('runs'\)/;
    expect(
      filesMatching(sources('src'), writesRuns).filter((file) => !file.startsWith('src/modules/runs/')),
    ).toEqual([]);
  });

  it('has no import cycle in src/, type-only imports included', () => {
    expect(importCycles(sources('src', { tests: false }))).toEqual([]);
  });

  it('keeps the README short: the manual lives in docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('cites only paths that exist, in the README and docs/ (links and `src/…`, `test/…` paths)', () => {
    const documents = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    const missing = documents.flatMap((document) => {
      const text = readFileSync(join(ROOT, document), 'utf8');
      const links = [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => relative(ROOT, resolve(ROOT, dirname(document), target)));
      const named = [...text.matchAll(/`((?:src|test|bench|scripts|deploy|web)\/[\w./-]+\.\w+)`/g)].map(
        (m) => m[1]!,
      );
      return [...links, ...named]
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${document}: ${path}`);
    });
    expect(missing).toEqual([]);
  });

  it('cites no document outside the repository: a comment points into it or says what it means', () => {
    // Written with character classes so that this line does not cite what it forbids.
    const outside = /\bA[P]I §|\bDESIG[N] §|\b(A[P]I|DESIG[N])\.md\b|reference[ -]note[s]|\b[Ii]ss[u]e #?\d+/;
    const files = [
      ...sources('src', { tests: true }),
      ...sources('test', { tests: true }),
      ...sources('bench', { tests: true }),
      ...sources('scripts', { tests: true }),
      ...sources('web/src', { tests: true }),
    ];
    expect(linesMatching(files, outside)).toEqual([]);
  });

  it('keeps src/http below the modules: it imports nothing from them', () => {
    expect(linesMatching(sources('src/http'), /from '\.\.\/modules\//)).toEqual([]);
  });
});
