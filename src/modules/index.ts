// The modules of the service, one line each: a new feature is its folder under src/modules/ (with a
// `<feature>.module.ts` that says what it contributes, see module.ts) and one line here. The order
// is the order of their routes in the OpenAPI description.
import { accessRequestsModule } from './access-requests/access-requests.module.ts';
import { anonymizeModule } from './anonymize/anonymize.module.ts';
import { apiKeysModule } from './api-keys/api-keys.module.ts';
import { approvalsModule } from './approvals/approvals.module.ts';
import { auditModule } from './audit/audit.module.ts';
import { auditExportModule } from './audit-export/audit-export.module.ts';
import { authModule } from './auth/auth.module.ts';
import { billingModule } from './billing/billing.module.ts';
import { bridgeModule } from './bridge/bridge.module.ts';
import { connectionsModule } from './connections/connections.module.ts';
import { driftModule } from './drift/drift.module.ts';
import { migrationsModule } from './migrations/migrations.module.ts';
import type { ModuleFactory } from './module.ts';
import { orgsModule } from './orgs/orgs.module.ts';
import { patchesModule } from './patches/patches.module.ts';
import { projectsModule } from './projects/projects.module.ts';
import { runsModule } from './runs/runs.module.ts';
import { samlModule } from './saml/saml.module.ts';
import { scimModule } from './scim/scim.module.ts';
import { seedsModule } from './seeds/seeds.module.ts';
import { snapshotsModule } from './snapshots/snapshots.module.ts';
import { usersModule } from './users/users.module.ts';
import { webhooksModule } from './webhooks/webhooks.module.ts';

export const MODULES: readonly ModuleFactory[] = [
  authModule,
  samlModule,
  orgsModule,
  usersModule,
  projectsModule,
  apiKeysModule,
  auditModule,
  connectionsModule,
  snapshotsModule,
  driftModule,
  runsModule,
  approvalsModule,
  accessRequestsModule,
  migrationsModule,
  patchesModule,
  seedsModule,
  bridgeModule,
  anonymizeModule,
  billingModule,
  scimModule,
  webhooksModule,
  auditExportModule,
];
