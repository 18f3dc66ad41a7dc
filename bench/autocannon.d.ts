// The part of autocannon's programmatic API the benchmark uses (the package ships no types, and the
// bench may not add a devDependency for them).
declare module 'autocannon' {
  export interface Options {
    /** Several URLs (of one path on several servers): the connections are dealt among them in turn. */
    url: string | string[];
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    /** Replaces each `[<id>]` in the body with a new unique id per request. */
    idReplacement?: boolean;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    warmup?: { connections?: number; duration?: number };
  }

  /** Percentiles as autocannon names them: p50, p90, p97_5, p99, p99_9 … */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  }

  export interface Result {
    url: string;
    /** Seconds. */
    duration: number;
    errors: number;
    timeouts: number;
    resets: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    /** Milliseconds. */
    latency: Histogram;
    /** Requests per second, sampled each second; `total` is the count of completed requests. */
    requests: Histogram & { sent: number };
    throughput: Histogram;
    warmup?: Result;
  }

  export default function autocannon(options: Options): Promise<Result>;
}
