// Just-in-time access requests and grants (their expiry runs with the approvals' pass).
import type { Module, Shared } from '../module.ts';
import { ACCESS_REQUEST_EVENT_SOURCES } from './access-request-events.ts';
import { registerAccessRequestsRoutes } from './access-requests.routes.ts';
import { createAccessRequestsService } from './access-requests.service.ts';

export function accessRequestsModule({ db, audit, now }: Shared): Module {
  const accessRequests = createAccessRequestsService({ db, audit, now });
  return {
    name: 'access-requests',
    routes: (api) => registerAccessRequestsRoutes(api, { accessRequests }),
    events: ['access_request.created', 'access_request.decided', 'access_request.expired'],
    eventSources: ACCESS_REQUEST_EVENT_SOURCES,
  };
}
