// Deletes sessions that can no longer be used: expired, or revoked, more than a day ago; and the
// half-finished logins (2FA challenges) that expired as long ago. The day of
// grace keeps a session that just ended in the store a while, for whoever investigates a sign-out or
// a revocation; it costs nothing, as a dead session is refused whether or not it is deleted yet.
import type { Db } from '../../store/db.ts';
import type { Logger } from '../module.ts';
import { deleteDeadSessions } from './auth.repo.ts';
import { deleteDeadChallenges } from './two-factor.repo.ts';

export const SESSION_CLEANUP_JOB = 'session_cleanup';

const GRACE_MS = 24 * 60 * 60 * 1000;

export interface SessionCleanupDeps {
  db: Db;
  logger: Logger;
  now?: () => Date;
}

/** One cleanup pass; returns how many sessions and login challenges it deleted. */
export function createSessionCleanup({ db, logger, now = () => new Date() }: SessionCleanupDeps) {
  return async (): Promise<{ deleted: number; challenges_deleted: number }> => {
    const before = new Date(now().getTime() - GRACE_MS);
    const deleted = await deleteDeadSessions(db, before);
    const challengesDeleted = await deleteDeadChallenges(db, before);
    logger.info(
      { job: SESSION_CLEANUP_JOB, deleted, challenges_deleted: challengesDeleted },
      'dead sessions deleted',
    );
    return { deleted, challenges_deleted: challengesDeleted };
  };
}
