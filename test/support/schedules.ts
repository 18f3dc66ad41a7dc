// A module's schedule as the app under test declares it, for suites that register it with a cron of
// their own (the harness registers no schedule, so that none fires while a suite moves the clock).
import type { Config } from '../../src/config.ts';
import { type Jobs, jobSender } from '../../src/jobs/boss.ts';
import { registerQueueWorker, registerSchedule } from '../../src/jobs/schedule.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import type { Logger, Module, ModuleFactory, QueueWorker, Schedule } from '../../src/modules/module.ts';
import type { TestApp } from './app.ts';

export function scheduleOf(t: TestApp, name: string): Schedule {
  const schedule = t.composition.modules.flatMap((m) => m.schedules ?? []).find((s) => s.name === name);
  if (!schedule) throw new Error(`No module declares the schedule ${name}`);
  return schedule;
}

/**
 * A module as a worker builds it, with this suite's logger, settings and queue, registered on
 * `jobs`: its queue worker and its schedule. Returns the module, to call its passes directly.
 */
export async function registerModuleJobs(
  t: TestApp,
  factory: ModuleFactory,
  jobs: Jobs,
  overrides: { logger: Logger; config: Partial<Config> },
): Promise<Module> {
  const config = { ...t.composition.config, ...overrides.config };
  const module = factory({
    ...t.composition,
    config,
    logger: overrides.logger,
    jobs: jobSender(jobs),
    mailer: createMailer({
      smtpUrl: config.smtpUrl,
      from: config.mailFrom,
      db: t.store.db,
      logger: overrides.logger,
      now: t.now,
    }),
  });
  for (const queue of module.queues ?? []) await registerQueueWorker(jobs, queue, overrides.logger, 0.5);
  for (const schedule of module.schedules ?? [])
    await registerSchedule(jobs, schedule, overrides.logger, 0.5);
  return module;
}

export function queueOf(module: Module, name: string): QueueWorker {
  const queue = module.queues?.find((q) => q.name === name);
  if (!queue) throw new Error(`The module declares no queue ${name}`);
  return queue;
}

export function scheduleIn(module: Module, name: string): Schedule {
  const schedule = module.schedules?.find((s) => s.name === name);
  if (!schedule) throw new Error(`The module declares no schedule ${name}`);
  return schedule;
}
