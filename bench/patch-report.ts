// The Markdown report of the patch bench (bench/patch.ts): medians as ratios to the plain UPDATE,
// rows per second, every run, and where each operation's time goes, statement by statement.
import os from 'node:os';
import type { TraceStep } from './patch-app.ts';
import type { PatchEngine, PlainRun } from './patch-engines.ts';
import { median } from './schema-report.ts';

/** On every engine, backup + execute (the run) at most this many times the plain UPDATE. */
export const TARGET_RATIO = 1.5;
/** Rows of the warm-up table. */
export const WARMUP_ROWS = 1000;

export interface Options {
  rows: number;
  /** The WHERE keeps ids that are multiples of it. */
  step: number;
  touched: number;
  repeats: number;
  engines: PatchEngine[];
  sql: string;
}

/** One execute or rollback run. */
export interface RunMeasure {
  /** The run's started_at → finished_at: the handler, with the run's own bookkeeping. */
  runMs: number;
  /** POST → finished_at: the request, the queue's pick-up, the run. */
  endToEndMs: number;
  trace: TraceStep[];
  result: Record<string, unknown>;
}

export interface Repeat {
  plain: PlainRun;
  /** The CLI's `select 1`, wall clock. */
  noopMs: number;
  dryRunMs: number;
  dryRunTrace: TraceStep[];
  execute: RunMeasure;
  rollback: RunMeasure;
}

export interface EngineOutcome {
  engine: string;
  server: string;
  client: string;
  tableBytes: number;
  loadMs: number;
  /** Each reload before a measurement. */
  resetMs: number[];
  repeats: Repeat[];
  /** Failed checks. */
  checks: string[];
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (ms: number) => (ms >= 100 ? `${fmt(ms)} ms` : `${ms.toFixed(1)} ms`);
const ratio = (n: number) => `${n.toFixed(2)}×`;
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const col = (outcome: EngineOutcome, f: (r: Repeat) => number) => median(outcome.repeats.map(f));
const plainMs = (o: EngineOutcome) => col(o, (r) => r.plain.ms);
const executeMs = (o: EngineOutcome) => col(o, (r) => r.execute.runMs);

export function verdict(outcome: EngineOutcome): string {
  const problems = outcome.checks.map((c) => `check: ${c}`);
  const executeRatio = executeMs(outcome) / plainMs(outcome);
  if (executeRatio > TARGET_RATIO)
    problems.unshift(
      `backup + execute ${ratio(executeRatio)} the plain UPDATE (target ≤ ${ratio(TARGET_RATIO)})`,
    );
  if (problems.length > 0) return `FAIL: ${problems.join('; ')}`;
  return 'ok';
}

/** The execute's statements by what they do: copies into the images, and the patch's own statement. */
function executeShares(outcome: EngineOutcome) {
  const of = (r: Repeat) => {
    let before = 0;
    let after = 0;
    let statement = 0;
    for (const step of r.execute.trace)
      if (step.kind === 'transaction')
        for (const query of step.queries) {
          const image = /^\s*INSERT INTO\s+\S*(dbops_backup|_dbops_bak_)\S*/i.exec(query.sql)?.[0] ?? null;
          if (image !== null && /_after\W*$/.test(image)) after += query.ms;
          else if (image !== null) before += query.ms;
          else if (/^\s*UPDATE\b/i.test(query.sql)) statement += query.ms;
        }
    return { before, after, statement };
  };
  return {
    before: col(outcome, (r) => of(r).before),
    after: col(outcome, (r) => of(r).after),
    statement: col(outcome, (r) => of(r).statement),
  };
}

/**
 * What the images cost beside the plain UPDATE. Where the run cuts the statement into key ranges
 * (MariaDB), each part is summed over them, and the UPDATE in the run finds in memory the pages the
 * copy read: it can then cost less than the plain one, which reads the table from disk.
 */
function partsNote(outcome: EngineOutcome): string {
  const plain = plainMs(outcome);
  const { before, after, statement } = executeShares(outcome);
  const x = (ms: number) => `${fmtMs(ms)} (${ratio(ms / plain)})`;
  return (
    `${outcome.engine}, backup + execute by part (medians, summed over key ranges; × the plain UPDATE's ${fmtMs(plain)}): ` +
    `before-image copy ${x(before)}, the UPDATE in the run ${x(statement)}, after-image copy ${x(after)}; ` +
    `the images ${ratio((before + after) / plain)} beside the statement`
  );
}

/** A statement as a label: the run id in backup table names generalised, long text shortened. */
function sqlLabel(sql: string): string {
  const text = sql
    .replace(/[0-9a-f]{32}/g, '<run>')
    .replace(/\s+/g, ' ')
    .trim();
  const short = text.length > 140 ? `${text.slice(0, 139)}…` : text;
  // A double-backtick code span holds MySQL's backticks; a pipe would end the table cell.
  return `\`\` ${short.replaceAll('|', '\\|')} \`\``;
}

interface Part {
  label: string;
  rows: number | null;
  ms: number;
}

/** The operation's target calls in order, each transaction's own cost apart, and the rest. */
function parts(trace: TraceStep[], totalMs: number): Part[] {
  const out: Part[] = [];
  let traced = 0;
  for (const step of trace) {
    traced += step.ms;
    if (step.kind !== 'transaction') {
      out.push({ label: `${step.kind}()`, rows: null, ms: step.ms });
      continue;
    }
    let inside = 0;
    // A statement cut into key ranges (patch-key-ranges.ts) repeats its calls: one line per text, summed.
    const byLabel = new Map<string, Part & { calls: number }>();
    for (const query of step.queries) {
      inside += query.ms;
      const label = sqlLabel(query.sql);
      const seen = byLabel.get(label);
      if (seen === undefined) byLabel.set(label, { label, rows: query.rows, ms: query.ms, calls: 1 });
      else
        Object.assign(seen, {
          rows: (seen.rows ?? 0) + query.rows,
          ms: seen.ms + query.ms,
          calls: seen.calls + 1,
        });
    }
    for (const part of byLabel.values())
      out.push({ ...part, label: part.calls === 1 ? part.label : `${part.label} (${part.calls} ranges)` });
    out.push({
      label: `transaction: pool, begin, limit, ${step.end} (not in the statements above)`,
      rows: null,
      ms: step.ms - inside,
    });
  }
  out.push({
    label: 'not on the target: the service, its store, the run record, the snapshot record',
    rows: null,
    ms: totalMs - traced,
  });
  return out;
}

/** Medians per position when every repeat made the same calls; the last repeat otherwise. */
function breakdown(title: string, runs: { trace: TraceStep[]; ms: number }[], lines: string[]): void {
  const all = runs.map((r) => parts(r.trace, r.ms));
  const shape = (p: Part[]) => p.map((x) => x.label).join('\n');
  const same = all.every((p) => shape(p) === shape(all[0]!));
  const used = same ? all : [all.at(-1)!];
  const total = median(runs.map((r) => r.ms));
  lines.push(
    '',
    `${title} (${same ? `median of ${runs.length}` : 'the last run: the runs made different calls'}, total ${fmtMs(total)}):`,
    '',
    row(['Step', 'Rows', 'Time', 'Share']),
    row(['---', '---:', '---:', '---:']),
  );
  for (const [i, part] of used[0]!.entries()) {
    const ms = median(used.map((p) => p[i]!.ms));
    lines.push(
      row([
        part.label,
        part.rows === null ? '' : fmt(part.rows),
        fmtMs(ms),
        `${((ms / total) * 100).toFixed(0)} %`,
      ]),
    );
  }
}

export function report(
  results: EngineOutcome[],
  notes: string[],
  opts: Options,
  loadBefore: number[],
): string {
  const cpus = os.cpus();
  const load = (avg: number[]) => avg.map((n) => n.toFixed(2)).join(' / ');
  const lines = [
    `# Patch: ${fmt(opts.rows)}-row table, ${fmt(opts.touched)} rows patched`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()})`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM; the database servers and the service store run on the same machine`,
    ...results.map((r) => `- ${r.engine} ${r.server} on 127.0.0.1; ${r.client}`),
    `- Table: \`accounts\` (id bigint primary key, email, name, balance decimal(14,2), status, updated_at, note), ${fmt(opts.rows)} generated rows; ` +
      results
        .map(
          (r) =>
            `${r.engine} ${(r.tableBytes / 2 ** 20).toFixed(0)} MiB with its index (${fmt(r.tableBytes / opts.rows)} B/row), loaded in ${(r.loadMs / 1000).toFixed(1)} s`,
        )
        .join('; '),
    `- Patch, the same text on both sides: \`${opts.sql}\` (${fmt(opts.touched)} rows, spread over the whole table)`,
    "- Plain: the statement run by the engine's CLI in autocommit, timed by the CLI (psql `\\timing`, the `(x sec)` of mariadb -vvv)",
    '- dbops: the service in-process (Fastify inject, the pg-boss worker with the real run handlers, store on PostgreSQL). ' +
      "Dry-run: the HTTP request. Backup + execute, rollback: the run's started_at → finished_at from the run record; " +
      "end to end: POST → finished_at, with the queue's pick-up (the worker polls every 0.5 s)",
    '- Before each measured plain UPDATE, dry-run and execute, the table is loaded again from scratch, then VACUUM ANALYZE + CHECKPOINT (PostgreSQL) or ANALYZE TABLE + FLUSH TABLES … FOR EXPORT (InnoDB); ' +
      'each rollback runs right after its execute. Checked: rows changed, dry-run changes nothing, the rollback gives back the table as loaded (checksum)',
    `- Runs: a warm-up (dry-run, execute, rollback, plain) on a ${fmt(WARMUP_ROWS)}-row table, then ${opts.repeats} measured; medians, and the minimum beside them`,
    `- Target: on both engines, backup + execute ≤ ${ratio(TARGET_RATIO)} the plain UPDATE`,
    `- Load average (1 / 5 / 15 min) before: ${load(loadBefore)}, after: ${load(os.loadavg())}`,
    '',
    row([
      'Engine',
      'Plain UPDATE',
      'Dry-run',
      'Backup + execute',
      'Execute end to end',
      'Rollback',
      'Rollback end to end',
      'Result',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
  ];
  for (const r of results) {
    // The minimum beside the median: on a busy machine, the run least disturbed by the rest of it.
    for (const [label, pick] of [
      ['median', median],
      ['min', (values: number[]) => Math.min(...values)],
    ] as const) {
      const of = (f: (x: Repeat) => number) => pick(r.repeats.map(f));
      const plain = of((x) => x.plain.ms);
      const cell = (ms: number) => `${fmtMs(ms)} (${ratio(ms / plain)})`;
      lines.push(
        row([
          `${r.engine}, ${label}`,
          fmtMs(plain),
          cell(of((x) => x.dryRunMs)),
          cell(of((x) => x.execute.runMs)),
          cell(of((x) => x.execute.endToEndMs)),
          cell(of((x) => x.rollback.runMs)),
          cell(of((x) => x.rollback.endToEndMs)),
          label === 'median' ? verdict(r) : '',
        ]),
      );
    }
  }
  lines.push(
    '',
    'Rows patched per second (medians):',
    '',
    row(['Engine', 'Plain UPDATE', 'Dry-run', 'Backup + execute', 'Rollback']),
    row(['---', '---:', '---:', '---:', '---:']),
    ...results.map((r) =>
      row([
        r.engine,
        ...[
          (x: Repeat) => x.plain.ms,
          (x: Repeat) => x.dryRunMs,
          (x: Repeat) => x.execute.runMs,
          (x: Repeat) => x.rollback.runMs,
        ].map((f) => fmt(opts.touched / (col(r, f) / 1000))),
      ]),
    ),
    '',
    '## Every run',
    '',
    row([
      'Engine',
      'Run',
      'Plain',
      'CLI process',
      'Dry-run',
      'Execute',
      'end to end',
      'Rollback',
      'end to end',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const r of results) {
    for (const [i, x] of r.repeats.entries()) {
      lines.push(
        row([
          r.engine,
          String(i + 1),
          fmtMs(x.plain.ms),
          fmtMs(x.plain.wallMs),
          fmtMs(x.dryRunMs),
          fmtMs(x.execute.runMs),
          fmtMs(x.execute.endToEndMs),
          fmtMs(x.rollback.runMs),
          fmtMs(x.rollback.endToEndMs),
        ]),
      );
    }
  }
  lines.push('');
  for (const r of results) {
    lines.push(
      `- ${r.engine}: the CLI process takes ${fmtMs(col(r, (x) => x.noopMs))} for \`select 1\` (start, connect, disconnect; median), ` +
        `not counted in "Plain"; each reload of the table took ${(median(r.resetMs) / 1000).toFixed(1)} s (median)`,
    );
  }
  for (const note of notes) lines.push(`- ${note}`);
  for (const r of results) if (r.repeats.length > 0) lines.push(`- ${partsNote(r)}`);
  lines.push(
    '',
    '## Where the time goes',
    '',
    "The target database calls of each operation, timed around the dialect's handle (bench/patch-app.ts): " +
      "each statement's round trip, each transaction's own cost (taking a pooled connection, BEGIN, the statement limit, COMMIT or ROLLBACK), " +
      "and what is left of the operation's time: the service itself (store reads and writes, the run record, the snapshot record).",
  );
  for (const r of results) {
    lines.push('', `### ${r.engine}`);
    breakdown(
      'Backup + execute',
      r.repeats.map((x) => ({ trace: x.execute.trace, ms: x.execute.runMs })),
      lines,
    );
    breakdown(
      'Rollback',
      r.repeats.map((x) => ({ trace: x.rollback.trace, ms: x.rollback.runMs })),
      lines,
    );
    breakdown(
      'Dry-run (the HTTP request)',
      r.repeats.map((x) => ({ trace: x.dryRunTrace, ms: x.dryRunMs })),
      lines,
    );
  }
  return `${lines.join('\n')}\n`;
}
