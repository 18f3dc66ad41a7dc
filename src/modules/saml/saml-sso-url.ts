// Where a sign-in may send the browser (docs/contract.md §12.1). `/auth/saml/{org_id}/login` is this service's own
// link, and anyone can sign up and configure SAML: an `idp_sso_url` of their choosing would make it a
// redirector to any page (phishing under the service's name). So the single sign-on URL must be
// `https://`; `http://` only for a loopback host (localhost, 127/8, ::1), where an identity provider
// is tested on the same machine. Checked at save (the fields, or the metadata's SingleSignOnService)
// and again before every redirect, for a configuration stored before the rule.
import { isIP } from 'node:net';
import { addressKind } from '../../security/address-class.ts';

export const SSO_URL_RULE =
  'The SSO URL must be https:// (http:// only for a loopback host: localhost, 127.0.0.1, ::1)';

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && addressKind(host) === 'loopback';
}

/** Whether `raw` is a single sign-on URL this service may redirect browsers to. */
export function isAcceptedSsoUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === 'https:') return url.hostname !== '';
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}
