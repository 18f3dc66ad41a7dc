// What can stall a request's tail in the server's process while a route is under load: the event
// loop's delay (perf_hooks' histogram: a callback that should run now runs later, whatever held
// the thread), the garbage collector's pauses (PerformanceObserver 'gc' entries, each a stop of the
// main thread, young-generation scavenges apart from full mark-compacts), and the store pool's
// queue (requests waiting for one of the pool's connections, sampled every few milliseconds).
// Little's law gives the mean latency a closed load of N connections must have at R requests a
// second (N / R); a p99 far above it means some requests waited much longer than the others.
import {
  constants,
  type EventLoopUtilization,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
  performance,
} from 'node:perf_hooks';

export interface TailSummary {
  /** Event-loop delay in ms: median, 99th percentile and maximum. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Share of the wall time the event loop was busy (not waiting for I/O). */
  loopBusy: number;
  /** Collector pauses: young-generation (scavenges) and the rest (mark-compact, incremental steps). */
  gc: { minor: PauseStats; major: PauseStats };
  /** The store pool's waiting requests, sampled; null without a pool to read. */
  poolWaiting: { mean: number; max: number; shareWaiting: number; size: number } | null;
  seconds: number;
}

export interface PauseStats {
  count: number;
  totalMs: number;
  maxMs: number;
}

const POOL_SAMPLE_MS = 5;

/** Starts watching; the returned function stops and summarises. */
export function probeTail(pool?: () => { active: number; idle: number; waiting: number }): () => TailSummary {
  const started = performance.now();
  const utilization: EventLoopUtilization = performance.eventLoopUtilization();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const minor: PauseStats = { count: 0, totalMs: 0, maxMs: 0 };
  const major: PauseStats = { count: 0, totalMs: 0, maxMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      const stats = kind === constants.NODE_PERFORMANCE_GC_MINOR ? minor : major;
      stats.count++;
      stats.totalMs += entry.duration;
      stats.maxMs = Math.max(stats.maxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  let samples = 0;
  let waitingSum = 0;
  let waitingMax = 0;
  let withWaiting = 0;
  let size = 0;
  const sampler = pool
    ? setInterval(() => {
        const now = pool();
        samples++;
        waitingSum += now.waiting;
        waitingMax = Math.max(waitingMax, now.waiting);
        if (now.waiting > 0) withWaiting++;
        size = Math.max(size, now.active + now.idle);
      }, POOL_SAMPLE_MS)
    : undefined;
  return () => {
    delay.disable();
    observer.disconnect();
    if (sampler) clearInterval(sampler);
    const busy = performance.eventLoopUtilization(utilization).utilization;
    const ms = (ns: number) => ns / 1e6;
    return {
      loopDelay: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      loopBusy: busy,
      gc: { minor, major },
      poolWaiting:
        pool && samples > 0
          ? { mean: waitingSum / samples, max: waitingMax, shareWaiting: withWaiting / samples, size }
          : null,
      seconds: (performance.now() - started) / 1000,
    };
  };
}
