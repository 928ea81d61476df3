import { beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createPartner, createProgram, partnerInput, type TestOrg, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { queuedTo, sentEmails } from '../support/outbox.js';

describe('welcome e-mail on POST /v1/partners', () => {
  const { t } = useTestApp();
  let org: TestOrg;
  const programName = 'Rocket Referrals';

  beforeAll(async () => {
    org = await createOrganization(t, { program: programName });
  });

  const outboxRows = (to: string) => queuedTo(t, to);
  const emailsTo = async (to: string) => (await sentEmails(t)).filter((m) => m.to === to);

  it('send_welcome_email: true writes one welcome message to the partner', async () => {
    const email = uniqueEmail('welcome');
    const partner = await createPartner(t, org, { email, first_name: 'Wendy', send_welcome_email: true });
    expect(partner).not.toHaveProperty('send_welcome_email');

    const messages = await emailsTo(email);
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(message.subject).toBe(`Welcome to the ${programName} partner program`);
    expect(message.from).not.toBe('');
    expect(message.file).toMatch(/^eml_[0-9A-Za-z]{24}\.eml$/);
    expect(message.text).toContain('Hi Wendy,');
    expect(message.text).toContain(`You have been added as a partner of ${programName}.`);
    expect(message.text).toContain('30 days');

    const rows = await outboxRows(email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ organization_id: org.organization_id, kind: 'partner_welcome', attempts: 1, last_error: null });
    expect(rows[0].sent_at).not.toBeNull();
    expect(message.file).toBe(`${rows[0].id}.eml`);
  });

  it('commits the outbox row with the partner, ready to send', async () => {
    const email = uniqueEmail('committed');
    const res = await t.request
      .post('/v1/partners')
      .set(org.auth)
      .send(partnerInput(org, { email, send_welcome_email: true }));
    expect(res.status).toBe(201);
    const partner = res.body.data[0];

    // Read straight after the 201, whether or not the background send has run yet.
    const [row] = await outboxRows(email);
    expect(row).toMatchObject({
      organization_id: org.organization_id,
      kind: 'partner_welcome',
      subject: `Welcome to the ${programName} partner program`,
    });
    const stored = await t.storage.db
      .selectFrom('partners')
      .select(['id', 'created_at'])
      .where('id', '=', partner.id)
      .executeTakeFirstOrThrow();
    expect(new Date(row.created_at).getTime()).toBeGreaterThanOrEqual(new Date(stored.created_at).getTime());

    expect(await emailsTo(email)).toHaveLength(1);
  });

  it('uses the name of the program the partner joins', async () => {
    const program = await createProgram(t, org, { name: 'Second Program', cookie_duration: 7 });
    const email = uniqueEmail('second');
    await createPartner(t, org, { program_id: program.id, email, send_welcome_email: true });
    const [message] = await emailsTo(email);
    expect(message.subject).toBe('Welcome to the Second Program partner program');
    expect(message.text).toContain('7 days');
  });

  it.each([
    ['false', { send_welcome_email: false }],
    ['absent', {}],
  ])('writes no message when send_welcome_email is %s', async (_label, flag) => {
    const email = uniqueEmail('silent');
    await createPartner(t, org, { email, ...flag });
    expect(await emailsTo(email)).toEqual([]);
    expect(await outboxRows(email)).toEqual([]);
  });

  it('writes no message when the create is refused', async () => {
    const existing = await createPartner(t, org);
    const duplicate = await t.request
      .post('/v1/partners')
      .set(org.auth)
      .send(partnerInput(org, { email: existing.email, send_welcome_email: true }));
    expect(duplicate.status).toBe(409);

    const email = uniqueEmail('refused');
    const badGroup = await t.request
      .post('/v1/partners')
      .set(org.auth)
      .send(partnerInput(org, { email, group_id: 'grp_doesnotexist00000000000', send_welcome_email: true }));
    expect(badGroup.status).toBe(404);
    const invalid = await t.request
      .post('/v1/partners')
      .set(org.auth)
      .send(partnerInput(org, { email, country_code: 'XX', send_welcome_email: true }));
    expect(invalid.status).toBe(400);

    expect(await emailsTo(existing.email)).toEqual([]);
    expect(await outboxRows(existing.email)).toEqual([]);
    expect(await emailsTo(email)).toEqual([]);
    expect(await outboxRows(email)).toEqual([]);
  });

  it('sends a single welcome message when simultaneous creates race for one e-mail', async () => {
    const email = uniqueEmail('race');
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.request
          .post('/v1/partners')
          .set(org.auth)
          .send(partnerInput(org, { email, send_welcome_email: true })),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await outboxRows(email)).toHaveLength(1);
    expect(await emailsTo(email)).toHaveLength(1);
  });

  it('does not send the message twice when drained again', async () => {
    const email = uniqueEmail('once');
    await createPartner(t, org, { email, send_welcome_email: true });
    expect(await emailsTo(email)).toHaveLength(1);
    expect(await t.deps.mailer.drain()).toBe(0);
    expect(await emailsTo(email)).toHaveLength(1);
    const [row] = await outboxRows(email);
    expect(row.attempts).toBe(1);
  });
});
