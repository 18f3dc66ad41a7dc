// The first organization and its owner: from `create-admin`, or on the first start of an empty store
// from ADMIN_EMAIL/ADMIN_PASSWORD. Without either, the start says how to make one.
import type { Config } from './config.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createOrgsService } from './modules/orgs/orgs.service.ts';
import { countUsers } from './modules/users/users.repo.ts';
import { createPasswordHasher } from './security/passwords.ts';
import type { Db } from './store/db.ts';

export async function createAdmin(
  db: Db,
  config: Pick<Config, 'argon2'>,
  input: { email: string; password: string; orgName: string; name?: string | undefined },
) {
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new Error(`Not an e-mail address: ${input.email}`);
  if (input.password.length < 8) throw new Error('The password needs at least 8 characters');
  const now = () => new Date();
  const passwords = await createPasswordHasher(config.argon2);
  const orgs = createOrgsService({ db, audit: createAuditService({ db, now }), passwords, now });
  return orgs.createWithOwner({
    orgName: input.orgName,
    email: input.email,
    password: input.password,
    name: input.name,
  });
}

export async function bootstrapAdmin(
  db: Db,
  config: Pick<Config, 'argon2' | 'admin' | 'databaseUrl'>,
  log: { info(msg: string): void; warn(msg: string): void },
): Promise<void> {
  if ((await countUsers(db)) > 0) return;
  if (config.admin) {
    const { org, owner } = await createAdmin(db, config, {
      email: config.admin.email,
      password: config.admin.password,
      orgName: config.admin.org,
    });
    log.info(`Created organization "${org.name}" with owner ${owner.email} from ADMIN_EMAIL`);
    return;
  }
  const how = config.databaseUrl
    ? "run: npm run cli -- create-admin --email you@example.com --password '…' --org 'Your org'"
    : "stop the server and run: npm run cli -- create-admin --email you@example.com --password '…' --org 'Your org' " +
      '(or start once with ADMIN_EMAIL and ADMIN_PASSWORD set)';
  log.warn(`No users yet. To create the first organization and its owner, ${how}`);
}
