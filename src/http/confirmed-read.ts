// One store round trip for the principal and the data, without weakening revocation: a route with
// `config.epochInQuery` gets a cached principal unconfirmed (src/modules/auth/credentials.ts), runs
// its read with it, its query returning the credential epoch beside the rows, and only then compares
// that epoch with the one the principal was cached under. Equal: nothing about any credential changed
// since the principal was cached, and the rows were read in the same snapshot as that epoch, so they
// stand. Different: the principal is looked up again (401 if it is gone), the route's action decided
// again, and the read done again with the fresh principal; the first rows are thrown away, which is
// why only reads may do this. The request's rate limits are counted once the principal is confirmed
// or refreshed (./auth.ts), under the plan it has now: a refused request has cost one read.
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../core/actors.ts';
import { enforceAction, settleRateLimits } from './auth.ts';
import { actorOf } from './context.ts';

export async function confirmedRead<T>(
  request: FastifyRequest,
  /** `withEpoch`: the query must return the epoch (only a principal still to confirm needs it). */
  read: (actor: Actor, withEpoch: boolean) => Promise<T>,
  /** The epoch the read's query returned, or undefined when it returned no row to carry it. */
  epochOf: (result: T) => string | undefined,
): Promise<T> {
  const identified = request.identified;
  const cachedUnder = identified?.unconfirmedEpoch ?? null;
  const result = await read(actorOf(request), cachedUnder !== null);
  if (!identified || cachedUnder === null) return result;
  const seen = epochOf(result) ?? (await identified.readEpoch());
  if (seen === cachedUnder) {
    await settleRateLimits(request);
    return result;
  }
  request.principal = await identified.refresh();
  request.identified = { ...identified, principal: request.principal, unconfirmedEpoch: null };
  // Counted under the fresh principal's plan: a plan changed since it was cached counts at once.
  await settleRateLimits(request);
  enforceAction(request.principal, request.routeOptions.config.action);
  return read(actorOf(request), false);
}
