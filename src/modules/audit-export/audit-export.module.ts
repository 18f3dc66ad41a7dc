// Audit export (docs/contract.md §11.2): sinks an organization admin configures, and the pass that streams each
// organization's audit chain to its sinks, in seq order and at least once, every minute.
import { createTargetGuard } from '../connections/target-guard.ts';
import type { Module, Shared } from '../module.ts';
import { createAuditExporter } from './audit-exporter.ts';
import { registerSinksRoutes } from './sinks.routes.ts';
import { createSinksService } from './sinks.service.ts';

export const AUDIT_EXPORT_SCHEDULE = 'audit_export';

export function auditExportModule({ config, db, box, audit, logger, now, resolveHost }: Shared): Module {
  // Outbound like webhooks, under the same address rules (WEBHOOK_ALLOW_PRIVATE).
  const guard = createTargetGuard({
    policy: {
      blockPrivate: !config.webhooks.allowPrivate,
      linkLocalFollowsPrivate: true,
      switchName: 'unless WEBHOOK_ALLOW_PRIVATE=true',
    },
    timeoutMs: 5_000,
    resolve: resolveHost,
  });
  const exporter = createAuditExporter({ db, box, guard, timeoutMs: config.webhooks.timeoutMs, logger, now });
  const sinks = createSinksService({ db, box, audit, guard, exporter, now });
  return {
    name: 'audit-export',
    routes: (api) => registerSinksRoutes(api, { sinks }),
    schedules: [
      {
        name: AUDIT_EXPORT_SCHEDULE,
        cron: '* * * * *',
        run: () => exporter.pass(),
        retry: { limit: 1, delaySeconds: 30 },
        expireInSeconds: 15 * 60,
      },
    ],
  };
}
