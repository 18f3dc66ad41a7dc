// Run after `npm install` changes package-lock.json: `npm run lockfile`.
// The registry this project installs from lacks Biome's binaries for platforms other than Linux
// glibc, so `npm install` leaves them out of the lock file, and `npm ci` then refuses the lock as
// out of sync. Listing them as optional, platform-bound entries (never downloaded on Linux) makes
// the lock complete again.
import fs from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'));
const packages: Record<string, Record<string, unknown>> = lock.packages;
const biome = packages['node_modules/@biomejs/biome'] as { optionalDependencies?: Record<string, string> };

let added = 0;
for (const [name, version] of Object.entries(biome?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (packages[key]) continue;
  const [os = '', cpu = '', libc] = name.replace('@biomejs/cli-', '').split('-');
  packages[key] = {
    version,
    cpu: [cpu],
    dev: true,
    optional: true,
    os: [os],
    ...(libc && { libc: [libc] }),
  };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
fs.writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added ? `Added ${added} platform entries to package-lock.json` : 'package-lock.json is complete');
