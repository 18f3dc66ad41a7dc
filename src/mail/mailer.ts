// Outgoing e-mail. With SMTP_URL, messages go through that server with nodemailer; without it they
// are written to the `outbox` table and to the log, so that a deployment without a mail server loses
// nothing and an operator can still read what would have been sent.
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Db } from '../store/db.ts';
import { insertOutboxMail } from './outbox.repo.ts';

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface MailReceipt {
  via: 'smtp' | 'outbox';
  /** The SMTP Message-ID, or the outbox row's id. */
  id: string;
  /** Recipients the server took (all of them for the outbox). */
  accepted: string[];
  rejected: string[];
}

export interface Mailer {
  /** Throws when the SMTP server refuses the message or cannot be reached (the caller retries). */
  send(mail: Mail): Promise<MailReceipt>;
  close(): void;
}

export interface MailerLogger {
  info(obj: object, msg: string): void;
}

// SMTP's own defaults wait minutes for a server that does not answer; a job retries sooner instead.
// Settings in SMTP_URL's query string (`?connectionTimeout=…`) take precedence.
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export function createMailer(deps: {
  smtpUrl: string | undefined;
  from: string;
  db: Db;
  logger: MailerLogger;
  now: () => Date;
}): Mailer {
  const { smtpUrl, from, db, logger, now } = deps;
  if (smtpUrl) {
    const transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS });
    return {
      async send(mail) {
        const info = await transport.sendMail({ from, ...mail });
        const address = (item: string | { address: string }) =>
          typeof item === 'string' ? item : item.address;
        return {
          via: 'smtp',
          id: info.messageId,
          accepted: info.accepted.map(address),
          rejected: info.rejected.map(address),
        };
      },
      close: () => transport.close(),
    };
  }
  return {
    async send(mail) {
      const row = await insertOutboxMail(db, {
        id: randomUUID(),
        recipients: mail.to,
        subject: mail.subject,
        text_body: mail.text,
        html_body: mail.html,
        created_at: now(),
      });
      logger.info(
        { outbox_id: row.id, to: mail.to, subject: mail.subject, text: mail.text },
        'e-mail written to the outbox (no SMTP_URL configured)',
      );
      return { via: 'outbox', id: row.id, accepted: mail.to, rejected: [] };
    },
    close() {},
  };
}
