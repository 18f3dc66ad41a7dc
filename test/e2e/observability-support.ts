// What the observability tests read a service with: a local OTLP/HTTP receiver (JSON encoding, which
// the exporters send with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), a Prometheus text parser for the
// few things asserted, and the TCP ports a process listens on, read from /proc.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  scope: string;
  service: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** Requests received, whatever their path (traces, metrics, logs). */
  requests: number;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
const plainValue = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, plainValue(a.value)]));

export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      if (request.url === '/v1/traces' && request.headers['content-type']?.includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
          for (const scopeSpans of resourceSpans.scopeSpans ?? [])
            for (const span of scopeSpans.spans ?? [])
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                scope: scopeSpans.scope?.name ?? '',
                service,
                attributes: attributesOf(span.attributes),
              });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Samples of a Prometheus text exposition: `name{labels}` → value, and the families with HELP. */
export function parseMetrics(text: string): { samples: Map<string, number>; help: Set<string> } {
  const samples = new Map<string, number>();
  const help = new Set<string>();
  for (const line of text.split('\n')) {
    const described = /^# HELP (\S+) \S/.exec(line);
    if (described?.[1]) help.add(described[1]);
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { samples, help };
}

/** The value of the sample of `name` whose labels include all of `labels`; undefined if none. */
export function sample(
  samples: Map<string, number>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const [key, value] of samples) {
    const [, metric, body = ''] = /^([^{]+)(?:\{(.*)\})?$/.exec(key) ?? [];
    if (metric !== name) continue;
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) return value;
  }
  return undefined;
}

/** The TCP ports process `pid` listens on (Linux). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const file = `/proc/${pid}/net/${table}`;
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ip:port in hex, st 0A is LISTEN, the inode is the tenth field.
      if (fields[3] === '0A' && inodes.has(fields[9] ?? ''))
        ports.push(Number.parseInt(fields[1]?.split(':')[1] ?? '', 16));
    }
  }
  return ports;
}
