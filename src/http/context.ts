// What a handler knows about its caller, typed once: the principal set by authentication, the route's
// declared action, and the actor passed to services for authorization and audit.
import type { FastifyRequest } from 'fastify';
import type { Actor, AnonymousActor, Principal } from '../core/actors.ts';
import { unauthenticated } from '../core/errors.ts';
import type { Action } from '../security/policy.ts';
import type { Identified } from './auth.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The action this route performs; the auth hook checks scope and organization role for it. */
    action?: Action;
    /** `public`: no credentials needed; `session`: only a signed-in session (never an API key). */
    auth?: 'public' | 'session';
    /**
     * The handler reads the credential epoch in its own store query and confirms the principal
     * through `confirmedRead` (./confirmed-read.ts): one round trip instead of two. Read-only routes.
     */
    epochInQuery?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** How the principal was found; null when anonymous. */
    identified: Identified | null;
    /**
     * The rate-limit charge of a request whose principal is still to confirm, made once it is
     * (`settleRateLimits`, ./auth.ts); null when it was charged on arrival or already settled.
     */
    pendingRateLimits: (() => Promise<void>) | null;
  }
}

export function actorOf(request: FastifyRequest): Actor {
  if (!request.principal) throw unauthenticated();
  return { principal: request.principal, ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}

export function anonymousActorOf(request: FastifyRequest): AnonymousActor {
  return { principal: null, ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}
