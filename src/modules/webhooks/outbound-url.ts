// Where the service may post to (webhooks, audit export sinks): an http(s) URL without credentials
// whose host the address guard allows (private, loopback and link-local refused unless configured;
// the metadata address always). Checked at save; the delivery checks again at connect.
import { invalid } from '../../core/errors.ts';
import type { TargetGuard } from '../connections/target-guard.ts';

/** The URL as it will be stored, or a 422 at `body.url` naming why not. */
export async function checkOutboundUrl(
  guard: TargetGuard,
  raw: string,
  credentialsHint = '',
): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(['body', 'url'], 'Not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalid(['body', 'url'], 'The URL must start with http:// or https://');
  if (url.username || url.password)
    throw invalid(['body', 'url'], `The URL must not carry credentials${credentialsHint}`);
  const verdict = await guard.verdict(url.hostname.replace(/^\[|\]$/g, ''));
  if (verdict.allowed === false) throw invalid(['body', 'url'], `Address refused: ${verdict.reason}`);
  if (verdict.allowed === 'unresolved') throw invalid(['body', 'url'], verdict.error.message);
  return url.toString();
}
