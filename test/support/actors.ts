// Services called directly in tests (the approval gate, runs) need the actor a route would build:
// this is the one of a signed-in client, with a session's full scopes.

import type { Actor } from '../../src/core/actors.ts';
import type { Client } from './app.ts';

export function actorOf(client: Client, orgId: string): Actor {
  return {
    principal: {
      userId: client.user.id,
      orgId,
      orgRole: client.user.org_role,
      email: client.user.email,
      via: 'session',
      scopes: null,
      sessionId: null,
      apiKeyId: null,
      plan: 'starter',
      customLimits: { perMinute: null, perHour: null },
    },
    ip: '127.0.0.1',
    userAgent: 'test',
  };
}
