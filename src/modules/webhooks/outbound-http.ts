// One outbound POST to an address the guard vetted. Node's own http client, because it never follows
// a redirect (a 3xx is an answer like any other, a failed attempt) and takes a `lookup`: the socket
// goes to the vetted address, not to whatever a second DNS answer says (rebinding). TLS still checks
// the certificate against the URL's host name. Shared by webhooks and the audit export.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';

/** What is kept of an answer's body: enough to see an error page's point, never a whole page. */
export const EXCERPT_BYTES = 1024;

export type PostOutcome =
  | { ok: true; status: number; retryAfterSeconds: number | null; excerpt: string }
  | { ok: false; error: string };

export async function postPinned(options: {
  url: URL;
  /** The vetted address to connect to. */
  address: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}): Promise<PostOutcome> {
  const { url, address, body } = options;
  const client = url.protocol === 'https:' ? https : http;
  const family = isIP(address) === 6 ? 6 : 4;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'dbops-webhooks/1',
          ...options.headers,
        },
        lookup: (_host, lookupOptions, callback) => {
          if ((lookupOptions as { all?: boolean }).all) callback(null, [{ address, family }]);
          else (callback as (e: null, a: string, f: number) => void)(null, address, family);
        },
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const finish = () => {
          resolve({
            ok: true,
            status: response.statusCode ?? 0,
            retryAfterSeconds: retryAfterSeconds(response.headers['retry-after']),
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
          });
        };
        response.on('data', (chunk: Buffer) => {
          if (kept >= EXCERPT_BYTES) return;
          chunks.push(chunk);
          kept += chunk.length;
          // The rest of a large answer is not read: the excerpt is all that is kept.
          if (kept >= EXCERPT_BYTES) {
            finish();
            response.destroy();
          }
        });
        response.on('end', finish);
        response.on('error', finish);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      resolve({
        ok: false,
        error: timedOut
          ? `Timed out after ${options.timeoutMs} ms`
          : `${error.code ?? 'error'}: ${error.message}`,
      });
    });
    request.end(body);
  });
}

/** `Retry-After` as delta seconds or as an HTTP date; null when absent or unreadable. */
function retryAfterSeconds(header: string | undefined): number | null {
  if (header === undefined) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
