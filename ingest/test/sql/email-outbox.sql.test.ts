import { describe, expect, it } from 'vitest';
import { claimDueEmails, markEmailFailed, markEmailSent, queueEmail } from '../../src/mail/outbox.js';
import { sqlOf } from '../support/sql-recorder.js';

describe('e-mail outbox SQL', () => {
  it('queueEmail', async () => {
    const email = { organizationId: 'org_1', kind: 'partner_welcome', to: 'a@example.com', subject: 'Welcome', text: 'Hi' };
    const recorded = await sqlOf((db) => queueEmail(db, email));
    // The id is random: only its prefix is part of the contract.
    expect(recorded.replace(/"eml_[0-9A-Za-z]+"/, '"eml_…"')).toMatchSnapshot();
  });

  it('claimDueEmails', async () => {
    expect(await sqlOf((db) => claimDueEmails(db, { batch: 20, leaseSeconds: 60, maxAttempts: 8 }))).toMatchSnapshot();
  });

  it('markEmailSent', async () => {
    expect(await sqlOf((db) => markEmailSent(db, 'email_1'))).toMatchSnapshot();
    // With the HTML rendered as it was sent (an e-mail in a program's brand).
    expect(await sqlOf((db) => markEmailSent(db, 'email_1', '<p>Hi</p>'))).toMatchSnapshot();
  });

  it('markEmailFailed', async () => {
    expect(await sqlOf((db) => markEmailFailed(db, 'email_1', 'connection refused', new Date()))).toMatchSnapshot();
  });
});
