// SCIM 2.0 provisioning (docs/contract.md §12): /scim/v2 for identity providers, and the organization's SCIM
// settings under /api/v1/admin/scim for its admins.
import type { Module, Shared } from '../module.ts';
import { registerScimAdminRoutes } from './scim.admin.routes.ts';
import { createScimAdmin } from './scim.admin.ts';
import { createScimGroups } from './scim.groups.ts';
import { createScimRoles } from './scim.roles.ts';
import { registerScimRoutes } from './scim.routes.ts';
import { createScimUsers } from './scim.users.ts';

export function scimModule({ config, db, audit, rateLimits, now }: Shared): Module {
  const baseUrl = `${config.publicUrl}/scim/v2`;
  const roles = createScimRoles({ audit, now });
  const users = createScimUsers({ db, audit, roles, now });
  const groups = createScimGroups({ db, audit, roles, now });
  const scim = createScimAdmin({ db, audit, roles, now, baseUrl });
  return {
    name: 'scim',
    routes: (api) => registerScimAdminRoutes(api, { scim }),
    mounts: [
      {
        prefix: '/scim/v2',
        register: (app) => registerScimRoutes(app, { db, users, groups, rateLimits, now, baseUrl }),
      },
    ],
  };
}
