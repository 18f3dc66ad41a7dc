// Who does something: the principal that authentication finds (a session or an API key), the actor
// handed to services for authorization and audit, and the service itself acting on a schedule or an
// operator's command. No framework here: the HTTP layer builds an Actor from a request.
import type { OrgRole, Plan, Scope } from './vocabulary.ts';

export interface Principal {
  userId: string;
  orgId: string;
  orgRole: OrgRole;
  email: string;
  via: 'session' | 'api_key';
  /** The key's scopes; a session has every scope. */
  scopes: readonly Scope[] | null;
  sessionId: string | null;
  apiKeyId: string | null;
  /** The organization's plan, read with the credentials: rate limits and features need no query. */
  plan: Plan;
  /** The organization's own rate limits (Enterprise); null fields mean the plan's default. */
  customLimits: { perMinute: number | null; perHour: number | null };
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

/** The service itself, on an operator's command (the CLI) or a schedule: actor type `system`. */
export interface SystemActor {
  principal: null;
  system: string;
  ip: string;
  userAgent: string | null;
}

/** A scheduled job acting: `systemActor('backup_retention')`. */
export const systemActor = (job: string): SystemActor => ({
  principal: null,
  system: job,
  ip: 'local',
  userAgent: null,
});

/** An operator's command line: `cliActor('set-plan')`. */
export const cliActor = (command: string): SystemActor => systemActor(`cli ${command}`);
