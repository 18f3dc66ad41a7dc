// BENCH_PROFILE=1: a CPU profile of this process (the server) while the API route is under load,
// summarised as self time per package or source file, and the busiest functions. Taken through the
// inspector, so it needs no flag and leaves the load generator's process out. V8 samples the main
// thread by wall clock: when the machine is short of cores, time the thread spent descheduled in a
// system call (writev, writeUtf8String) is counted to that call, so compare with the CPU column.
import { Session } from 'node:inspector/promises';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by package (`pg`, `kysely`, `@electric-sql/pglite`), source file, `node:` module or VM state. */
  byOwner: [string, number][];
  /** Self time by function. */
  byFunction: [string, number][];
}

const ROOT = path.resolve(import.meta.dirname, '..');

function ownerOf({ url, functionName }: CallFrame): string {
  if (url === '')
    return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  if (url.startsWith('wasm://')) return '(wasm)';
  if (url.startsWith('node:')) return url;
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope = '', name = ''] = file.slice(modules + '/node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  return path.relative(ROOT, file);
}

export async function profileWhile<T>(
  work: () => Promise<T>,
  intervalUs = 250,
): Promise<[T, ProfileSummary]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    return [result, summarise(profile)];
  } finally {
    session.disconnect();
  }
}

function summarise(profile: CpuProfile): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // The time of a sample is the delta to the next one.
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i + 1] ?? 0));
  }
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    const owner = ownerOf(frame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us / 1000);
    const fn = `${frame.functionName || '(anonymous)'} ${owner}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us / 1000);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    totalMs: (profile.endTime - profile.startTime) / 1000,
    byOwner: sorted(byOwner),
    byFunction: sorted(byFunction),
  };
}

export function formatProfile(title: string, summary: ProfileSummary, top = 15): string {
  const pct = (ms: number) => `${((ms / summary.totalMs) * 100).toFixed(1)} %`;
  const lines = [`### CPU profile of the server: ${title} (${(summary.totalMs / 1000).toFixed(1)} s)`, ''];
  lines.push('| Self time by owner | Share |', '|---|---:|');
  for (const [owner, ms] of summary.byOwner.slice(0, top)) lines.push(`| \`${owner}\` | ${pct(ms)} |`);
  lines.push('', '| Self time by function | Share |', '|---|---:|');
  for (const [fn, ms] of summary.byFunction.slice(0, top)) lines.push(`| \`${fn}\` | ${pct(ms)} |`);
  return `${lines.join('\n')}\n`;
}
