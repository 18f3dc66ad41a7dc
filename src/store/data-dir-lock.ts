// The embedded store can be opened by one process at a time: two PGlite instances writing one data
// directory corrupt it. A lock file holding the owner's pid makes a second process stop with one
// clear line instead. A lock left by a process that no longer exists is taken over.
import fs from 'node:fs';
import path from 'node:path';

export class DataDirBusyError extends Error {}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'dbops.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx', mode: 0o600 });
      const release = () => {
        if (readOwner(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
        process.off('exit', release);
      };
      process.on('exit', release);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(lockPath);
      if (owner !== undefined && isAlive(owner)) {
        throw new DataDirBusyError(
          `The embedded store in ${dataDir} is in use by another dbops process (pid ${owner}); ` +
            'only one process can open it: stop that process first, or use DATABASE_URL',
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirBusyError(`Could not lock the embedded store in ${dataDir}`);
}

function readOwner(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
