import type { Db } from '../db/database.js';
import { newId } from '../ids.js';

export interface OutgoingEmail {
  organizationId: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
}

/** Queues an e-mail in the same SQL transaction as the change that causes it; the mailer sends it after commit. */
export async function queueEmail(db: Db, email: OutgoingEmail): Promise<void> {
  await db
    .insertInto('email_outbox')
    .values({
      id: newId('email'),
      organization_id: email.organizationId,
      kind: email.kind,
      to_address: email.to,
      subject: email.subject,
      text_body: email.text,
      next_attempt_at: new Date(),
      created_at: new Date(),
    })
    .execute();
}
