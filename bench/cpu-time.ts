// Where a bench's CPU goes, read from Linux's /proc: this process's threads by kind (its main
// thread, V8's helper threads, which run the garbage collector's parallel and concurrent work, and
// threads that ended meanwhile, such as a run's worker threads), the processes it waited for
// (psql), and the database servers' processes. Wall-clock ratios say how far from the limit a run
// is; these say what it spent on the way. Elsewhere than Linux every figure is null.
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSnapshot {
  /** This process's main thread. */
  main: number;
  /** V8's helper threads ("V8Worker"): the collector's parallel and concurrent work, and compilation. */
  v8Helpers: number;
  /** Other threads alive now (libuv's pool, worker threads still running). */
  otherLive: number;
  /** All of this process's threads, ended ones included. */
  process: number;
  /** Child processes this process waited for. */
  children: number;
  /** Every process named `postgres` or `mariadbd`, with the children they waited for. */
  servers: number;
}

export type CpuDelta = CpuSnapshot & {
  /** Threads that ended between the two snapshots (a run's transform workers). */
  ended: number;
};

/** Milliseconds of user + system time in a /proc stat line: fields 14 and 15, and 16 and 17 with `waited`. */
export function statMs(line: string, waited: boolean): number {
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  const ticks = (i: number) => Number(fields[i - 3]);
  const own = ticks(14) + ticks(15);
  // Clock ticks are 100 per second on Linux builds (USER_HZ).
  return (waited ? own + ticks(16) + ticks(17) : own) * 10;
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

export function cpuSnapshot(): CpuSnapshot | null {
  const self = read('/proc/self/stat');
  if (self === null) return null;
  const snapshot: CpuSnapshot = { main: 0, v8Helpers: 0, otherLive: 0, process: 0, children: 0, servers: 0 };
  const fields = self.slice(self.lastIndexOf(')') + 2).split(' ');
  snapshot.process = (Number(fields[11]) + Number(fields[12])) * 10;
  snapshot.children = (Number(fields[13]) + Number(fields[14])) * 10;
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = read(`/proc/self/task/${tid}/stat`);
    if (stat === null) continue;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ms = statMs(stat, false);
    if (tid === String(process.pid)) snapshot.main += ms;
    else if (name.startsWith('V8Worker')) snapshot.v8Helpers += ms;
    else snapshot.otherLive += ms;
  }
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const comm = read(`/proc/${pid}/comm`)?.trim();
    if (comm !== 'postgres' && comm !== 'mariadbd') continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat !== null) snapshot.servers += statMs(stat, true);
  }
  return snapshot;
}

/**
 * What was spent between two snapshots. A server backend that ended meanwhile took its time with
 * it unless its parent waited for it (PostgreSQL's postmaster does), so `servers` is a lower bound.
 */
export function cpuBetween(before: CpuSnapshot | null, after: CpuSnapshot | null): CpuDelta | null {
  if (before === null || after === null) return null;
  const delta = (key: keyof CpuSnapshot) => after[key] - before[key];
  const live = delta('main') + delta('v8Helpers') + delta('otherLive');
  return {
    main: delta('main'),
    v8Helpers: delta('v8Helpers'),
    otherLive: delta('otherLive'),
    process: delta('process'),
    children: delta('children'),
    servers: delta('servers'),
    // Threads alive at both snapshots are counted above; what the process spent beyond them, ended threads spent.
    ended: Math.max(0, delta('process') - live),
  };
}
