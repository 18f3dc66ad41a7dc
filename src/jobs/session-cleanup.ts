// Deletes sessions that can no longer be used: expired, or revoked, more than a day ago; and the
// half-finished logins (2FA challenges) that expired as long ago. The day of
// grace keeps a session that just ended in the store a while, for whoever investigates a sign-out or
// a revocation; it costs nothing, as a dead session is refused whether or not it is deleted yet.
import { deleteDeadSessions } from '../modules/auth/auth.repo.ts';
import { deleteDeadChallenges } from '../modules/auth/two-factor.repo.ts';
import type { Db } from '../store/db.ts';
import { ensureQueue, type Jobs, type JobsLogger } from './boss.ts';
import { jobNames } from './names.ts';

const GRACE_MS = 24 * 60 * 60 * 1000;

export interface SessionCleanupDeps {
  db: Db;
  logger: JobsLogger;
  now?: () => Date;
}

/** One cleanup pass; returns how many sessions and login challenges it deleted. */
export function createSessionCleanup({ db, logger, now = () => new Date() }: SessionCleanupDeps) {
  return async (): Promise<{ deleted: number; challenges_deleted: number }> => {
    const before = new Date(now().getTime() - GRACE_MS);
    const deleted = await deleteDeadSessions(db, before);
    const challengesDeleted = await deleteDeadChallenges(db, before);
    logger.info(
      { job: jobNames.sessionCleanup, deleted, challenges_deleted: challengesDeleted },
      'dead sessions deleted',
    );
    return { deleted, challenges_deleted: challengesDeleted };
  };
}

export async function registerSessionCleanup(
  jobs: Jobs,
  {
    cron,
    pollingIntervalSeconds = 10,
    ...deps
  }: SessionCleanupDeps & {
    /** When to clean up, a cron expression in UTC (config `sessionCleanupCron`). */
    cron: string;
    /** How often an idle worker looks for a job; a cleanup is never urgent. */
    pollingIntervalSeconds?: number;
  },
): Promise<void> {
  const name = jobNames.sessionCleanup;
  const cleanup = createSessionCleanup(deps);
  // `stately`: at most one pass waiting and one running, so passes never pile up behind a slow one
  // or across several workers. A failed pass is retried a few times, then the next tick tries again.
  await ensureQueue(jobs, name, {
    policy: 'stately',
    retryLimit: 3,
    retryDelay: 30,
    retryBackoff: true,
    expireInSeconds: 10 * 60,
  });
  // Stored in pg-boss's schema, keyed by queue name: every process registers the same schedule and
  // pg-boss sends one job per tick whichever process's clock fires it.
  await jobs.boss.schedule(name, cron, null, { tz: 'UTC' });
  await jobs.boss.work(name, { pollingIntervalSeconds }, async () => {
    try {
      return await cleanup();
    } catch (error) {
      // pg-boss records the failure on the job and retries it; the log is where an operator sees it.
      deps.logger.error({ err: error, job: name }, 'session cleanup failed');
      throw error;
    }
  });
}
