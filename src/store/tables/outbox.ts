import type { Json, Timestamp } from './columns.ts';

/** E-mails written down instead of sent, when no SMTP server is configured (src/mail). */
export interface OutboxTable {
  id: string;
  recipients: Json<string[]>;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: Timestamp;
}
