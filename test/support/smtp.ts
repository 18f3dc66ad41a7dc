// A real SMTP peer for tests: `smtp-server` on 127.0.0.1 (a free port), keeping every message it
// accepts with its envelope, and a small reader of what nodemailer writes (headers, and the text and
// HTML parts of a multipart/alternative body, quoted-printable or base64).
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string | null;
  to: string[];
  raw: string;
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** Waits until `count` messages have arrived (15 s at most). */
  waitFor(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no TLS upgrade (the server's certificate is self-signed) and no login.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const { mailFrom, rcptTo } = session.envelope;
        received.push({
          from: mailFrom ? mailFrom.address : null,
          to: rcptTo.map((address) => address.address).sort(),
          raw,
          ...readMessage(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    async waitFor(count) {
      const deadline = Date.now() + 15_000;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} e-mail(s)`);
        await sleep(100);
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header name (lower case) → unfolded value, of one header block. */
function headersOf(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() === 'base64')
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    const joined = body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < joined.length; i++) {
      const hex = joined.slice(i + 1, i + 3);
      if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        i += 2;
      } else {
        bytes.push(...Buffer.from(joined[i]!, 'utf8'));
      }
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return body;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=` / `=?UTF-8?B?…?=`) in a header value. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

function readMessage(raw: string): { subject: string; text: string; html: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = headersOf(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const boundary = /boundary="?([^";]+)"?/i.exec(headers.get('content-type') ?? '')?.[1];
  const parts: Record<string, string> = {};
  const pieces = boundary ? body.split(`--${boundary}`).slice(1, -1) : [body];
  for (const piece of pieces) {
    const content = piece.replace(/^\r?\n/, '');
    const end = content.search(/\r?\n\r?\n/);
    const partHeaders = boundary ? headersOf(content.slice(0, end)) : headers;
    const partBody = boundary ? content.slice(end).replace(/^\r?\n\r?\n/, '') : content;
    const type = (partHeaders.get('content-type') ?? 'text/plain').split(';')[0]!.trim();
    parts[type] = decodeBody(partBody.replace(/\r?\n$/, ''), partHeaders.get('content-transfer-encoding'));
  }
  return {
    subject: decodeWords(headers.get('subject') ?? ''),
    text: (parts['text/plain'] ?? '').replace(/\r\n/g, '\n'),
    html: (parts['text/html'] ?? '').replace(/\r\n/g, '\n'),
  };
}
