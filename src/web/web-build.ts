// The web application's build, as `npm start` needs it: the assets in web/dist are rebuilt with Vite
// when they are missing or were built from other sources than the ones in web/ now. Freshness is a
// hash of the sources (not file times, which a checkout or a copy changes), kept beside the build.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The web workspace of this repository. */
export const WEB_DIR = path.resolve(import.meta.dirname, '../../web');
export const WEB_DIST = path.join(WEB_DIR, 'dist');
/** Written into dist after a build: the hash of the sources it was built from. */
export const SOURCE_HASH_FILE = '.source-hash';

/** What the build depends on, relative to the web directory. */
const SOURCES = ['index.html', 'package.json', 'tsconfig.json', 'vite.config.ts', 'src', 'public'];

function listFiles(dir: string, base: string): string[] {
  const full = path.join(dir, base);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [base];
  return fs
    .readdirSync(full)
    .filter((name) => !name.endsWith('.test.ts') && !name.endsWith('.test.tsx'))
    .flatMap((name) => listFiles(dir, path.join(base, name)));
}

/** The hash of the web sources: their relative paths and contents, in a stable order. */
export function webSourceHash(webDir: string): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap((entry) => listFiles(webDir, entry)).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(webDir, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

export type WebBuildOutcome = 'fresh' | 'built' | 'unavailable';

export interface WebBuildOptions {
  webDir?: string;
  log?: (message: string) => void;
}

/**
 * Builds the web application when its build is missing or stale. Vite is a development dependency:
 * an install without it keeps whatever build there is ('unavailable' when it cannot build).
 */
export async function ensureWebBuild(options: WebBuildOptions = {}): Promise<WebBuildOutcome> {
  const webDir = options.webDir ?? WEB_DIR;
  const log = options.log ?? (() => {});
  const dist = path.join(webDir, 'dist');
  if (!fs.existsSync(path.join(webDir, 'index.html'))) return 'unavailable';
  const wanted = webSourceHash(webDir);
  const stampFile = path.join(dist, SOURCE_HASH_FILE);
  const built = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : undefined;
  if (built === wanted && fs.existsSync(path.join(dist, 'index.html'))) return 'fresh';

  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    log('The web application needs a build, but Vite is not installed (npm ci installs it)');
    return 'unavailable';
  }
  log(built ? 'Rebuilding the web application: its sources changed' : 'Building the web application');
  // Built aside and swapped in, so a server reading dist meanwhile sees the old build or the new one.
  const staging = `${dist}.building-${process.pid}-${Date.now()}`;
  const configFile = path.join(webDir, 'vite.config.ts');
  try {
    await vite.build({
      root: webDir,
      configFile: fs.existsSync(configFile) ? configFile : false,
      logLevel: 'warn',
      build: { outDir: staging, emptyOutDir: true },
    });
    fs.writeFileSync(path.join(staging, SOURCE_HASH_FILE), `${wanted}\n`);
    fs.rmSync(dist, { recursive: true, force: true });
    fs.renameSync(staging, dist);
  } catch (error) {
    // Another process (a parallel test file) may have swapped in the same build first.
    const theirs = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : undefined;
    if (theirs !== wanted) throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return 'built';
}
