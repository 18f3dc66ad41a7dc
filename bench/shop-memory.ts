// The resident memory (and CPU time) of a set of processes and everything they started (worker threads are in their
// process's RSS; child processes are found by their parent id in /proc), read from
// /proc/<pid>/status VmRSS: what the service holds in all, whatever process does the work.
import { readdirSync, readFileSync } from 'node:fs';
import { statMs } from './cpu-time.ts';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function rssKb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every live process's children, from one pass over /proc. */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  return children;
}

/** The roots and all their descendants alive now. */
export function processTree(roots: readonly number[], children = childrenByParent()): number[] {
  const tree: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * User + system ms the roots' trees have spent so far (their threads, ended ones included, and the
 * children they waited for).
 */
export function treeCpuMs(roots: readonly number[]): number {
  let ms = 0;
  for (const pid of processTree(roots)) {
    try {
      ms += statMs(readFileSync(`/proc/${pid}/stat`, 'utf8'), true);
    } catch {
      // Ended between the listing and the read.
    }
  }
  return ms;
}

/** RSS of the roots' whole trees now, in bytes. */
export function treeRss(roots: readonly number[], children = childrenByParent()): number {
  return processTree(roots, children).reduce((sum, pid) => sum + rssKb(pid) * 1024, 0);
}

export interface RssPeaks {
  /** The total when the watch started, in bytes. */
  start: number;
  /** The highest total of all the trees together, in bytes. */
  total: number;
  /** The highest of each root's tree alone, in the roots' order, in bytes. */
  byRoot: number[];
}

export interface RssWatch {
  /** The peaks seen since the watch started. */
  stop(): RssPeaks;
}

/** Samples the trees' RSS every `intervalMs` until stopped. */
export function watchRss(roots: readonly number[], intervalMs = 50): RssWatch {
  const peaks: RssPeaks = { start: 0, total: 0, byRoot: roots.map(() => 0) };
  // Listing /proc costs a few ms, reading the known processes' RSS a few µs: the tree is listed
  // again every half second, so a child started mid-run is counted from then on.
  let children = childrenByParent();
  let listed = performance.now();
  const sample = () => {
    if (performance.now() - listed > 500) {
      children = childrenByParent();
      listed = performance.now();
    }
    const each = roots.map((root) => treeRss([root], children));
    peaks.total = Math.max(
      peaks.total,
      each.reduce((sum, n) => sum + n, 0),
    );
    each.forEach((n, i) => {
      peaks.byRoot[i] = Math.max(peaks.byRoot[i] ?? 0, n);
    });
  };
  sample();
  peaks.start = peaks.total;
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { start: peaks.start, total: peaks.total, byRoot: [...peaks.byRoot] };
    },
  };
}

/**
 * The median of the trees' RSS over `ms` of sampling, all together and each root's alone: the idle
 * level, without one sample's jitter.
 */
export async function idleRss(
  roots: readonly number[],
  ms = 2_000,
  intervalMs = 100,
): Promise<{ total: number; byRoot: number[] }> {
  const samples: number[][] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const children = childrenByParent();
    samples.push(roots.map((root) => treeRss([root], children)));
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const middle = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return {
    total: middle(samples.map((each) => each.reduce((sum, n) => sum + n, 0))),
    byRoot: roots.map((_, i) => middle(samples.map((each) => each[i] ?? 0))),
  };
}
