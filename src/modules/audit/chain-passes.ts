// The passes of this process that chain waiting audit entries (./audit-append.ts), one organization
// at a time each: a caller whose entry is committed asks for a pass that starts after its call and
// waits for it. While a pass runs, every caller joins the one queued after it, so N concurrent
// writers of an organization cost about two passes, not N turns on the chain's lock.
import type { Db } from '../../store/db.ts';
import { takeInPending } from './audit-append.ts';

interface OrgPasses {
  running: Promise<void> | undefined;
  queued: Promise<void> | undefined;
}

export type ChainPasses = ReturnType<typeof createChainPasses>;

export function createChainPasses(db: Db) {
  const byOrg = new Map<string | null, OrgPasses>();

  function passAfterNow(orgId: string | null): Promise<void> {
    let passes = byOrg.get(orgId);
    if (!passes) {
      passes = { running: undefined, queued: undefined };
      byOrg.set(orgId, passes);
    }
    // A queued pass has not started: it reads what is committed now.
    if (passes.queued) return passes.queued;
    const state = passes;
    const previous = state.running ?? Promise.resolve();
    const pass: Promise<void> = previous
      .catch(() => {})
      .then(() => {
        state.running = pass;
        state.queued = undefined;
        return takeInPending(db, orgId);
      })
      .finally(() => {
        if (state.running === pass) state.running = undefined;
        if (!state.running && !state.queued) byOrg.delete(orgId);
      });
    state.queued = pass;
    return pass;
  }

  return {
    /** Resolves once every entry of these organizations committed before the call is chained. */
    async settle(orgIds: Iterable<string | null>): Promise<void> {
      await Promise.all([...orgIds].map(passAfterNow));
    },
  };
}
