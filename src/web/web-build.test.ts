import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureWebBuild, SOURCE_HASH_FILE, webSourceHash } from './web-build.ts';

// Inside the repository (var/ is ignored by git) so that Vite resolves from its node_modules.
const webDir = path.resolve(import.meta.dirname, '../../var', `web-build-${process.pid}-${Date.now()}`);

function writeSources(message: string): void {
  fs.mkdirSync(path.join(webDir, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(webDir, 'index.html'),
    '<!doctype html><div id="root"></div><script type="module" src="/src/main.js"></script>',
  );
  fs.writeFileSync(
    path.join(webDir, 'src', 'main.js'),
    `document.getElementById('root').textContent = ${JSON.stringify(message)};`,
  );
}

const builtScript = () => {
  const assets = fs.readdirSync(path.join(webDir, 'dist', 'assets'));
  return assets.map((name) => fs.readFileSync(path.join(webDir, 'dist', 'assets', name), 'utf8')).join('\n');
};

describe('npm start builds the web application when missing or stale', () => {
  afterAll(() => fs.rmSync(webDir, { recursive: true, force: true }));

  it('builds a missing build, keeps a fresh one, rebuilds a stale one', async () => {
    writeSources('first version');
    expect(await ensureWebBuild({ webDir })).toBe('built');
    expect(builtScript()).toContain('first version');
    expect(fs.readFileSync(path.join(webDir, 'dist', SOURCE_HASH_FILE), 'utf8').trim()).toBe(
      webSourceHash(webDir),
    );

    expect(await ensureWebBuild({ webDir })).toBe('fresh');

    writeSources('second version');
    const messages: string[] = [];
    expect(await ensureWebBuild({ webDir, log: (m) => messages.push(m) })).toBe('built');
    expect(builtScript()).toContain('second version');
    expect(builtScript()).not.toContain('first version');
    expect(messages.join('\n')).toMatch(/sources changed/);
  });

  it('rebuilds when the build was removed even though the stamp says fresh', async () => {
    writeSources('third version');
    await ensureWebBuild({ webDir });
    fs.rmSync(path.join(webDir, 'dist', 'index.html'));
    expect(await ensureWebBuild({ webDir })).toBe('built');
    expect(fs.existsSync(path.join(webDir, 'dist', 'index.html'))).toBe(true);
  });

  it('hashes contents, not file times', () => {
    writeSources('same');
    const before = webSourceHash(webDir);
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(webDir, 'src', 'main.js'), later, later);
    expect(webSourceHash(webDir)).toBe(before);
    writeSources('different');
    expect(webSourceHash(webDir)).not.toBe(before);
  });
});
