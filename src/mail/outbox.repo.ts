// The outbox: e-mails written down instead of sent, when the service has no SMTP server.
import type { Kysely } from 'kysely';
import type { Database, OutboxMail } from '../store/tables.ts';

type Executor = Kysely<Database>;

export async function insertOutboxMail(
  db: Executor,
  mail: Omit<OutboxMail, 'recipients'> & { recipients: string[] },
): Promise<OutboxMail> {
  return db
    .insertInto('outbox')
    .values({ ...mail, recipients: JSON.stringify(mail.recipients) })
    .returningAll()
    .executeTakeFirstOrThrow();
}
