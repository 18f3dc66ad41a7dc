// Just-in-time access requests and grants (their expiry runs with the approvals' pass).
import type { Module, Shared } from '../module.ts';
import { registerAccessRequestsRoutes } from './access-requests.routes.ts';
import { createAccessRequestsService } from './access-requests.service.ts';

export function accessRequestsModule({ db, audit, now }: Shared): Module {
  const accessRequests = createAccessRequestsService({ db, audit, now });
  return { name: 'access-requests', routes: (api) => registerAccessRequestsRoutes(api, { accessRequests }) };
}
