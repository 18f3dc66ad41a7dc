// Where the service may connect. A connection's host is chosen by a user, so without a guard the
// service would open TCP connections on their behalf to anything it can reach: the cloud metadata
// endpoint (credentials of the machine), link-local services, or the private network it runs in.
// Link-local and metadata addresses are always refused; private and loopback ranges too when
// BLOCK_PRIVATE_TARGETS=true. The decision is made on every address the host name resolves to (a
// name that resolves to one bad address among good ones is refused), when a connection is created or
// edited and before every connect. Addresses are classified by security/address-class.ts, which
// judges an IPv6 address that carries an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) by it.
//
// The connect goes to an address this check vetted, never to the name: `assertAllowed` returns the
// addresses, and the pools hand the dialects the first one as the host (with the name kept for TLS),
// so the drivers do no lookup of their own and a DNS answer that changes after the check (rebinding)
// cannot send them elsewhere. A pool keeps its vetted address for its lifetime; see
// connection-pools.ts for when it is resolved again.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { TargetError } from '../../dialects/errors.ts';
import { type AddressKind, addressKind } from '../../security/address-class.ts';

const DESCRIPTION: Record<Exclude<AddressKind, 'public'>, string> = {
  metadata: 'a cloud metadata address',
  link_local: 'a link-local address',
  loopback: 'a loopback address',
  private: 'a private address',
};

/** Names that reach a metadata service without a metadata address in the answer one might check. */
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

export interface GuardPolicy {
  /** BLOCK_PRIVATE_TARGETS: refuse private and loopback addresses too. */
  blockPrivate: boolean;
  /**
   * Whether link-local addresses follow `blockPrivate` (webhooks, docs/contract.md §11.1) instead of being
   * always refused (database connections). Metadata addresses are refused either way.
   */
  linkLocalFollowsPrivate?: boolean;
  /** The setting that switches `blockPrivate`, named in refusals. */
  switchName?: string;
}

export function isMetadataHost(host: string): boolean {
  return METADATA_HOSTS.has(host.toLowerCase().replace(/\.$/, ''));
}

/** Why `address` may not be connected to under `policy` (kind and rule), or null when it may. */
export function addressRefusal(
  address: string,
  policy: GuardPolicy,
): { kind: Exclude<AddressKind, 'public'>; rule: string } | null {
  const kind = addressKind(address);
  if (kind === 'public') return null;
  if (kind === 'metadata' || (kind === 'link_local' && !policy.linkLocalFollowsPrivate)) {
    return { kind, rule: 'connections to link-local and cloud metadata addresses are always refused' };
  }
  if (!policy.blockPrivate) return null;
  const what = policy.linkLocalFollowsPrivate ? 'private, loopback and link-local' : 'private and loopback';
  return {
    kind,
    rule: `this server refuses ${what} addresses (${policy.switchName ?? 'BLOCK_PRIVATE_TARGETS=true'})`,
  };
}

/** Every address a host name resolves to (IPv4 and IPv6), as the system resolver answers. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** The addresses a host may be reached at, in the resolver's order: never empty. */
export type VettedAddresses = [string, ...string[]];

export type GuardVerdict =
  | { allowed: true; addresses: VettedAddresses }
  /** The address policy refuses the host. */
  | { allowed: false; reason: string }
  /** The name does not resolve (or not in time): nothing to decide on yet. */
  | { allowed: 'unresolved'; error: TargetError };

export type TargetGuard = ReturnType<typeof createTargetGuard>;

export function createTargetGuard(deps: {
  policy: GuardPolicy;
  /** How long a name may take to resolve. */
  timeoutMs: number;
  resolve?: Resolver;
}) {
  const { policy, timeoutMs } = deps;
  const resolve = deps.resolve ?? systemResolver;

  async function resolveInTime(host: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TargetError('timeout', `The operation timed out: resolving ${host}`)),
        timeoutMs,
      );
      timer.unref();
    });
    try {
      return await Promise.race([resolve(host), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The decision for `host`: an IP literal as it is, a name on every address it resolves to. */
  async function verdict(host: string): Promise<GuardVerdict> {
    if (isMetadataHost(host)) {
      return {
        allowed: false,
        reason: `${host} is a cloud metadata service; connections to it are always refused`,
      };
    }
    let resolved: string[];
    if (isIP(host.split('%')[0]!) !== 0) {
      resolved = [host];
    } else {
      try {
        resolved = await resolveInTime(host);
      } catch (error) {
        if (error instanceof TargetError) return { allowed: 'unresolved', error };
        const code = (error as { code?: unknown }).code;
        return {
          allowed: 'unresolved',
          error: new TargetError(
            'unreachable',
            `The server is unreachable: the host name ${host} does not resolve`,
            typeof code === 'string' ? code : null,
          ),
        };
      }
    }
    const [first, ...rest] = resolved;
    if (first === undefined) {
      return {
        allowed: 'unresolved',
        error: new TargetError('unreachable', `The server is unreachable: ${host} has no address`),
      };
    }
    const addresses: VettedAddresses = [first, ...rest];
    for (const address of addresses) {
      const refusal = addressRefusal(address, policy);
      if (refusal) {
        const what = `${address} is ${DESCRIPTION[refusal.kind]}`;
        return {
          allowed: false,
          reason: `${address === host ? what : `${host} resolves to ${address}, ${DESCRIPTION[refusal.kind]}`}; ${refusal.rule}`,
        };
      }
    }
    return { allowed: true, addresses };
  }

  return {
    verdict,

    /**
     * Before a connect: the addresses `host` may be reached at (itself for an IP literal), in the
     * resolver's order; connect to one of these, not to the name. Throws a TargetError when the host
     * is refused (cause permission_denied: the service's own policy, not worth retrying) or does not
     * resolve.
     */
    async assertAllowed(host: string): Promise<VettedAddresses> {
      const result = await verdict(host);
      if (result.allowed === true) return result.addresses;
      if (result.allowed === 'unresolved') throw result.error;
      throw new TargetError('permission_denied', `Address refused: ${result.reason}`, 'ADDRESS_REFUSED');
    },
  };
}
