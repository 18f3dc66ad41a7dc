// The shop bench's report (bench/shop.ts): one table with each data operation beside its reference,
// its goal, its time, ratio and RSS growth, and whether its result was correct; then every measure.
import os from 'node:os';
import type { TimedRun, WorkerMemory } from './shop-service.ts';

/** RSS growth over idle that every operation must stay under, at any row count, in bytes. */
export const RSS_GROWTH_LIMIT = 150 * 2 ** 20;

export interface Outcome {
  work: string;
  reference: string;
  /** Ours ≤ ratio × the reference's time; the worker's peak RSS below `belowRss` bytes. */
  goal: { ratio?: number; belowRss?: number | undefined };
  /** Median of the reference's times; NaN when it was not measured. */
  referenceMs: number;
  referenceAll: number[];
  ours: TimedRun[];
  /** Where the result is not what it must be; empty when correct. */
  problems: string[];
  /** What was checked, in words. */
  checked: string;
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/** The worker's own account of its memory once a run is over: where its RSS is. */
export const workerAfter = (m: WorkerMemory) =>
  `RSS ${mb(m.rss)}, V8 heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)} (young generation ${mb(m.spaces.new ?? 0)}), ` +
  `outside the heap ${mb(m.external)}`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const cell = (text: string) => text.replace(/\|/g, '\\|');

function figures(o: Outcome, idle: number) {
  const oursMs = o.ours.length > 0 ? median(o.ours.map((r) => r.wallMs)) : Number.NaN;
  const peak = Math.max(...o.ours.map((r) => r.peakRss));
  const workerPeak = Math.max(...o.ours.map((r) => r.workerPeakRss));
  return { oursMs, ratio: oursMs / o.referenceMs, peak, workerPeak, growth: peak - idle };
}

function misses(o: Outcome, idle: number): string[] {
  const { ratio, workerPeak, growth } = figures(o, idle);
  const missed: string[] = [];
  if (o.ours.length === 0) return ['not measured'];
  if (o.goal.ratio !== undefined) {
    if (!Number.isFinite(ratio)) missed.push('reference missing');
    else if (ratio > o.goal.ratio) missed.push(`${ratio.toFixed(2)}× > ${o.goal.ratio}×`);
  }
  if (o.goal.belowRss !== undefined && workerPeak >= o.goal.belowRss)
    missed.push(`worker RSS ${mb(workerPeak)} ≥ the reference's ${mb(o.goal.belowRss)}`);
  if (growth >= RSS_GROWTH_LIMIT) missed.push(`RSS +${mb(growth)} ≥ +${mb(RSS_GROWTH_LIMIT)}`);
  return missed;
}

function goalText(o: Outcome): string {
  const parts: string[] = [];
  if (o.goal.ratio !== undefined) parts.push(`≤ ${o.goal.ratio}×`);
  if (o.goal.belowRss !== undefined) parts.push(`worker RSS < ${mb(o.goal.belowRss)} (its peak)`);
  parts.push(`RSS < +${mb(RSS_GROWTH_LIMIT)}`);
  return parts.join(', ');
}

function result(o: Outcome, idle: number): string {
  const missed = misses(o, idle);
  const verdict = missed.length === 0 ? 'ok' : `MISSED: ${missed.join('; ')}`;
  return o.problems.length === 0 ? verdict : `WRONG: ${o.problems.join('; ')}; ${verdict}`;
}

/** Of each operation's median run: its wall time beside the CPU the service and the servers spent. */
function whereTheTimeGoes(outcomes: Outcome[]): string[] {
  const rows = outcomes
    .filter((o) => o.ours.length > 0)
    .map((o) => {
      const run = [...o.ours].sort((a, b) => a.wallMs - b.wallMs)[Math.floor((o.ours.length - 1) / 2)]!;
      const busy = (run.serviceCpuMs + run.databaseCpuMs) / run.wallMs;
      return `| ${cell(o.work)} | ${s(run.wallMs)} | ${s(run.pickupMs)} | ${s(run.serviceCpuMs)} | ${s(run.databaseCpuMs)} | ${busy.toFixed(2)} |`;
    });
  if (rows.length === 0) return [];
  return [
    '',
    '## Where the time goes (the median run of each)',
    '',
    '| Work | Ours (POST → succeeded) | Queue pick-up | Service CPU | Database servers CPU | Cores busy (CPU / wall) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `- Cores busy near ${os.cpus().length} means the operation was CPU-bound on this machine; well below it, it waited (on locks, the queue, the network, the disk, or cores other work held). The database servers' CPU counts every session on the machine, other benches' included.`,
  ];
}

export function shopReport(args: {
  outcomes: Outcome[];
  rows: number;
  repeats: number;
  idle: number;
  workerIdle: number;
  loadBefore: number[];
  errors: string[];
}): { lines: string[]; ok: boolean } {
  const { outcomes, rows, repeats, idle, workerIdle, loadBefore, errors } = args;
  const load = (avg: number[]) => avg.map((n) => n.toFixed(2)).join(' / ');
  const cpus = os.cpus();
  const lines = [
    '# Realistic data: every data operation on a shop schema, beside its reference in the same run',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM; Node ${process.version} on ${os.platform()} ${os.release()}; PostgreSQL, MariaDB, the service and the references share them`,
    `- Data: ${rows.toLocaleString('en-US')} rows in all (customers 10 % : orders 30 % : order_items 60 %), bench/shop-rows.ts: names, e-mails, phones, streets and cities of twelve locales (accents, Greek, Cyrillic, CJK, Hangul), NULLs, a JSON column, two foreign keys, an index on each foreign key and on the e-mails`,
    '- Service: real processes as `npm start` and `npm run worker` start them (through scripts/node-service.sh, with its memory settings), one API (`JOBS_IN_SERVER=false`) and one worker, on a PostgreSQL store; ours is timed from the POST to the run seen `succeeded` by a client polling every 100 ms (queue pick-up included)',
    `- Memory: RSS of every process of the service (both processes and their children; worker threads are in their process's RSS), /proc VmRSS sampled every 50 ms; growth = the peak of both processes together during the operation's runs over their idle level before the first run (${mb(idle)}, of which the worker ${mb(workerIdle)}); the worker's own growth is its peak over its idle level. pgloader's peak RSS (its one process, /usr/bin/time) is compared with the peak of the worker, the service's process that does the copy`,
    `- ${repeats} repeats, reference then ours each time; medians`,
    `- Load average (1 / 5 / 15 min) before: ${load(loadBefore)}, after: ${load(os.loadavg())}; other work on the machine takes cores from the service more than from its references`,
    '',
    '| Work | Reference (same run) | Reference | Goal | Ours | Ratio | RSS growth: all (peak); worker alone | Result |',
    '| --- | --- | ---: | --- | ---: | ---: | ---: | --- |',
  ];
  let ok = errors.length === 0;
  for (const o of outcomes) {
    const { oursMs, ratio, peak, workerPeak, growth } = figures(o, idle);
    ok &&= o.problems.length === 0 && misses(o, idle).length === 0;
    lines.push(
      `| ${cell(o.work)} | ${cell(o.reference)} | ${Number.isFinite(o.referenceMs) ? s(o.referenceMs) : '–'} | ${goalText(o)} | ${Number.isFinite(oursMs) ? s(oursMs) : '–'} | ${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '–'} | ${o.ours.length > 0 ? `+${mb(growth)} (${mb(peak)}); worker +${mb(workerPeak - workerIdle)}` : '–'} | ${cell(result(o, idle))} |`,
    );
  }
  const measured = outcomes.filter((o) => o.ours.length > 0).map((o) => figures(o, idle));
  if (measured.length > 0) {
    const growths = measured.map((f) => f.growth);
    const [low, high] = [Math.min(...growths), Math.max(...growths)];
    const peak = Math.max(...measured.map((f) => f.peak));
    lines.push(
      `| Memory, each of the above | the service idle: ${mb(idle)} RSS (API + worker) | – | < +${mb(RSS_GROWTH_LIMIT)} | +${mb(low)} to +${mb(high)} (peak ${mb(peak)}) | – | – | ${high < RSS_GROWTH_LIMIT ? 'ok' : 'MISSED'} |`,
    );
  }
  lines.push(...whereTheTimeGoes(outcomes));
  lines.push(
    '',
    '## Every measure',
    '',
    "CPU: user + system time from /proc, of the service's two processes (threads and waited-for children included) and of every PostgreSQL and MariaDB server process on the machine (other sessions of this shared machine included), from the POST to the run seen `succeeded`.",
    '',
  );
  for (const o of outcomes) {
    const runs = o.ours
      .map(
        (r) =>
          `${s(r.wallMs)} (run ${s(r.runMs)}, pick-up ${s(r.pickupMs)}; CPU: service ${s(r.serviceCpuMs)}, database servers ${s(r.databaseCpuMs)}; RSS at the POST ${mb(r.startRss)}, peak ${mb(r.peakRss)}, worker's peak ${mb(r.workerPeakRss)}; worker after: ${workerAfter(r.workerAfter)})`,
      )
      .join(', ');
    const references = o.referenceAll.filter(Number.isFinite).map(s).join(', ');
    lines.push(
      `- ${o.work}: ours ${runs || '–'}${references ? `; reference ${references}` : ''}. Checked: ${o.checked || '–'}${o.problems.length > 0 ? `; found: ${o.problems.join('; ')}` : ' (correct)'}.`,
    );
  }
  if (errors.length > 0)
    lines.push(
      `- The service logged ${errors.length} error lines, the first: ${errors.slice(0, 3).join(' / ')}`,
    );
  return { lines, ok };
}
