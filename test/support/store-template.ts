// Fresh embedded stores from a template. A new PGlite store runs PGlite's initdb (about 5 s of CPU,
// twice that with its helper threads, and far longer side by side on a loaded machine) and then,
// for most tests, every store migration. Here both are done once: a blank data directory (initdb
// only) and a migrated one, kept under node_modules/.cache and keyed by PGlite's version and the
// sources the migrations run, so a changed migration builds a new template and no test starts on a
// stale schema. The production path (initdb and every migration on a first start) stays covered
// from nothing by src/store/store.test.ts (in memory) and test/e2e/embedded-start.test.ts (a real
// `serve` on an empty DATA_DIR).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE = path.join(ROOT, 'node_modules/.cache/dbops-store-template');
/** Changes with the way templates are built, so an older build is not taken for this one. */
const FORMAT = 'pglite-tar-and-dir-1';
/**
 * Templates of other keys built longer ago than this are removed when a new one is built; a recent
 * one is kept, as a run still on the older sources may be reading it.
 */
const STALE_MS = 24 * 60 * 60 * 1000;

export type TemplateKind = 'blank' | 'migrated';

/**
 * migrate.ts and every file it imports for its values, transitively: what a migration runs. Type-only
 * imports are left out (tables.ts reaches half the engine, none of which changes the schema).
 */
function migrationSources(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.\.?\/[^']+)'/gm))
      visit(path.resolve(path.dirname(file), spec!));
  };
  visit(path.join(ROOT, 'src/store/migrate.ts'));
  return [...seen].sort();
}

let key: string | undefined;

/**
 * What a migrated store depends on, as 16 hex digits: PGlite's version and the migration sources.
 * Also names the PostgreSQL template of a run (./databases.ts), which a test then uses only while
 * the migrations are the ones it was made from (in watch mode they may change under a run).
 */
export function migrationsKey(): string {
  if (key === undefined) {
    const hash = createHash('sha256').update(FORMAT);
    const pglite = path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json');
    hash.update(JSON.parse(fs.readFileSync(pglite, 'utf8')).version);
    for (const file of migrationSources())
      hash.update(path.relative(ROOT, file)).update(fs.readFileSync(file));
    key = hash.digest('hex').slice(0, 16);
  }
  return key;
}

/** Initdb on disk, dumped; every migration, dumped; the migrated directory kept as it is. */
async function build(dir: string): Promise<void> {
  const store = await openStore({ kind: 'pglite', dataDir: dir });
  try {
    const pglite = store.pglite!;
    // A checkpoint first, so a store loaded from the dump has no WAL to replay.
    const dump = async (kind: TemplateKind) => {
      await pglite.exec('checkpoint');
      const tarball = await pglite.dumpDataDir('none');
      fs.writeFileSync(path.join(dir, `${kind}.tar`), Buffer.from(await tarball.arrayBuffer()));
    };
    await dump('blank');
    await migrateToLatest(store.db);
    await dump('migrated');
  } finally {
    await store.close();
  }
}

let ready: Promise<string> | undefined;

/**
 * The template's directory, built on first use (vitest's global setup asks once before the test
 * files run, so they do not race to build it): `blank.tar` and `migrated.tar` (PGlite tarballs) and
 * `pglite/` (the migrated data directory, as a DATA_DIR holds it).
 */
export function storeTemplate(): Promise<string> {
  ready ??= (async () => {
    const key = migrationsKey();
    const dir = path.join(CACHE, key);
    if (fs.existsSync(dir)) return dir;
    fs.mkdirSync(CACHE, { recursive: true });
    const building = path.join(CACHE, `.${key}-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await build(building);
      fs.renameSync(building, dir);
    } catch (error) {
      // Another process finished the same template first: its copy is as good.
      if (!fs.existsSync(dir)) throw error;
    } finally {
      fs.rmSync(building, { recursive: true, force: true });
    }
    for (const entry of fs.readdirSync(CACHE)) {
      const other = path.join(CACHE, entry);
      if (entry !== key && Date.now() - fs.statSync(other).mtimeMs > STALE_MS)
        fs.rmSync(other, { recursive: true, force: true });
    }
    return dir;
  })();
  return ready;
}

/** An in-memory store started from the template: as initdb left it (`blank`) or migrated. */
export async function openTemplateStore(kind: TemplateKind): Promise<Store> {
  const tarball = await fs.openAsBlob(path.join(await storeTemplate(), `${kind}.tar`));
  return openStore({ kind: 'pglite-memory', template: tarball });
}

/** Puts the migrated template's data directory in DATA_DIR, where a first start would run initdb. */
export async function seedDataDir(dataDir: string): Promise<void> {
  fs.cpSync(path.join(await storeTemplate(), 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
}
