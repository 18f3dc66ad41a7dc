// Outbound webhooks (docs/contract.md §11.1): the routes, the fan-out of the event outbox into deliveries, the
// delivery queue, and the minute's sweep that finds what a crash left behind.
import { createTargetGuard } from '../connections/target-guard.ts';
import { EVENT_DISPATCH_QUEUE } from '../events/events.service.ts';
import type { Module, Shared } from '../module.ts';
import { createDeliveryWorker, WEBHOOK_DELIVER_QUEUE } from './webhook-delivery.ts';
import { createFanout } from './webhook-fanout.ts';
import { registerWebhooksRoutes } from './webhooks.routes.ts';
import { createWebhooksService } from './webhooks.service.ts';

export const WEBHOOK_SWEEP_SCHEDULE = 'webhook_sweep';

export function webhooksModule({ config, db, box, audit, jobs, logger, now, resolveHost }: Shared): Module {
  // The connections' guard, with the webhooks' own switch: private, loopback and link-local
  // receivers only when WEBHOOK_ALLOW_PRIVATE=true; metadata addresses never (docs/contract.md §11.1).
  const guard = createTargetGuard({
    policy: {
      blockPrivate: !config.webhooks.allowPrivate,
      linkLocalFollowsPrivate: true,
      switchName: 'unless WEBHOOK_ALLOW_PRIVATE=true',
    },
    timeoutMs: 5_000,
    resolve: resolveHost,
  });
  const worker = createDeliveryWorker({ db, box, audit, guard, config: config.webhooks, jobs, logger, now });
  const fanout = createFanout({ db, worker, now });
  const webhooks = createWebhooksService({ db, box, audit, guard, worker, now });
  return {
    name: 'webhooks',
    routes: (api) => registerWebhooksRoutes(api, { webhooks }),
    events: ['webhook.test'],
    queues: [
      {
        name: EVENT_DISPATCH_QUEUE,
        work: () => fanout.dispatch(),
        retry: { limit: 5, delaySeconds: 5 },
        expireInSeconds: 300,
        pollingIntervalSeconds: 1,
      },
      {
        name: WEBHOOK_DELIVER_QUEUE,
        work: async (data) => {
          await worker.deliver(String(data.delivery_id));
          return undefined;
        },
        // A failed attempt schedules its own retry; a job fails only when the store does.
        retry: { limit: 3, delaySeconds: 10 },
        expireInSeconds: 120,
        pollingIntervalSeconds: 1,
        // Deliveries wait on receivers (up to the 10 s timeout): many in flight per process.
        batchSize: 20,
      },
    ],
    schedules: [
      {
        name: WEBHOOK_SWEEP_SCHEDULE,
        cron: '* * * * *',
        run: () => fanout.sweep(),
        retry: { limit: 1, delaySeconds: 30 },
        expireInSeconds: 300,
      },
    ],
  };
}
