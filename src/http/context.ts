// What a handler knows about its caller, typed once: the principal set by authentication, the route's
// declared action, and the actor passed to services for authorization and audit.
import type { FastifyRequest } from 'fastify';
import type { Action, Principal } from '../security/policy.ts';
import { unauthenticated } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The action this route performs; the auth hook checks scope and organization role for it. */
    action?: Action;
    /** `public`: no credentials needed; `session`: only a signed-in session (never an API key). */
    auth?: 'public' | 'session';
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Who did something, from where: what services need for authorization and the audit log. */
export interface Actor {
  principal: Principal;
  ip: string;
  userAgent: string | null;
}

export interface AnonymousActor {
  principal: null;
  ip: string;
  userAgent: string | null;
}

export function actorOf(request: FastifyRequest): Actor {
  if (!request.principal) throw unauthenticated();
  return { principal: request.principal, ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}

export function anonymousActorOf(request: FastifyRequest): AnonymousActor {
  return { principal: null, ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}
