// The first organization and its owner: from `create-admin`, or on the first start of an empty store
// from ADMIN_EMAIL/ADMIN_PASSWORD. Without either, the start says how to make one. The install's own
// organization starts on Enterprise (Starter with BILLING_MODE=saas): orgs.service.ts.
import type { Config } from '../../config.ts';
import { AppError } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import type { Logger } from '../module.ts';
import { countUsers } from '../users/users.repo.ts';
import type { OrgsService } from './orgs.service.ts';

export interface FirstAdminInput {
  email: string;
  password: string;
  orgName: string;
  name?: string | undefined;
}

export async function createAdmin(orgs: Pick<OrgsService, 'createOperatorOrg'>, input: FirstAdminInput) {
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email))
    throw new AppError('validation', `Not an e-mail address: ${input.email}`);
  if (input.password.length < 8) throw new AppError('validation', 'The password needs at least 8 characters');
  return orgs.createOperatorOrg({
    orgName: input.orgName,
    email: input.email,
    password: input.password,
    name: input.name,
  });
}

export const CREATE_ADMIN_HINT =
  "ADMIN_PASSWORD='…' npm run cli -- create-admin --email you@example.com --org 'Your org'";

/** On start: the administrator of ADMIN_EMAIL when the store has no user yet, or a hint. */
export async function bootstrapAdmin(
  db: Db,
  orgs: Pick<OrgsService, 'createOperatorOrg'>,
  admin: Config['admin'],
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<void> {
  if ((await countUsers(db)) > 0) return;
  if (admin) {
    const { org, owner } = await createAdmin(orgs, {
      email: admin.email,
      password: admin.password,
      orgName: admin.org,
    });
    logger.info(
      {},
      `Created organization "${org.name}" with owner ${owner.email} from ADMIN_EMAIL, on the ${org.plan} plan`,
    );
    return;
  }
  logger.warn(
    {},
    `No users yet. To create the first organization and its owner, run: ${CREATE_ADMIN_HINT} ` +
      '(or start once with ADMIN_EMAIL and ADMIN_PASSWORD set)',
  );
}
