// Standard Webhooks v1 signing (standardwebhooks.com): the secret is `whsec_` + base64 of random bytes;
// the signature is base64 HMAC-SHA256 over "{msg id}.{unix seconds}.{body}" keyed with those bytes,
// written `v1,<sig>`. During a rotation both secrets sign and the header lists both, space-separated,
// so a receiver that has either secret accepts the message.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (docs/contract.md §11.1). */
export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

export function signature(secret: string, msgId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt. */
export function signedHeaders(
  secrets: readonly string[],
  msgId: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, msgId, timestamp, body)).join(' '),
  };
}
