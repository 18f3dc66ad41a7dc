// The identity provider's signing certificate as PEM, from PEM or the bare base64 that metadata
// files and admin consoles show. Parsed by Node's X.509 reader, so a typo is a 422 at configuration
// time, not a failed sign-in later.
import { X509Certificate } from 'node:crypto';

const PEM = /^-----BEGIN CERTIFICATE-----([\s\S]*)-----END CERTIFICATE-----$/;

/** The certificate as PEM (64-character lines), or null when it is not one X.509 certificate. */
export function toPemCertificate(given: string): string | null {
  const trimmed = given.trim();
  const body = (PEM.exec(trimmed)?.[1] ?? trimmed).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return null;
  }
}
