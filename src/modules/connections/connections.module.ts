// Connections to target databases (the service itself is shared: every operation reaches its
// target through it, over the one pool set of the process).
import type { Module, Shared } from '../module.ts';
import { registerConnectionsRoutes } from './connections.routes.ts';

export function connectionsModule({ connections }: Shared): Module {
  return { name: 'connections', routes: (api) => registerConnectionsRoutes(api, { connections }) };
}
