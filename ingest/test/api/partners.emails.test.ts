import { describe, expect, it } from 'vitest';
import {
  type ApiObject,
  clickOf,
  commissionsOf,
  createCustomer,
  createLink,
  createPartner,
  createTransaction,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';
import { queuedTo, sentEmails } from '../support/outbox.js';

/**
 * The partner e-mails behind the Partnership Program API's three switches
 * (ingest/docs/partner-emails.md): a first customer, each new customer, a commission paid. Sent
 * through the outbox as .eml files here.
 */

const PROGRAM = 'Rocket Referrals';

/** What was sent to the partner, oldest first: the .eml files, and the outbox rows with their text and HTML. */
async function mailOf(t: TestApp, partner: ApiObject) {
  const sent = (await sentEmails(t)).filter((m) => m.to === partner.email);
  const rows = await queuedTo(t, partner.email);
  return { sent, rows, kinds: rows.map((r) => r.kind) };
}

const newPartner = (t: TestApp, org: TestOrg, switches: Record<string, boolean> = {}) =>
  createPartner(t, org, { email: uniqueEmail('mailpartner'), first_name: 'Pat', ...switches });

describe('partner e-mails: customers', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ program: PROGRAM }] });

  it('sends the first-customer e-mail once, then a new-customer e-mail for each further customer', async () => {
    const partner = await newPartner(t, org);
    await createCustomer(t, org, partner, { email: 'carol@example.com' });
    await createCustomer(t, org, partner, { email: 'dave@example.org' });
    const { sent, rows, kinds } = await mailOf(t, partner);
    expect(kinds).toEqual(['partner_first_customer', 'partner_new_customer']);
    // Subjects as written (the .eml headers carry them MIME-encoded: the masking dots are not ASCII).
    expect(rows.map((r) => r.subject)).toEqual([`Your first referral for ${PROGRAM}`, `New referral for ${PROGRAM}: d•••@example.org`]);
    expect(sent).toHaveLength(2);
    expect(rows.every((r) => r.sent_at !== null)).toBe(true);
    // The partner learns that someone signed up, not who.
    expect(rows[0].text_body).toContain('c•••@example.com');
    expect(rows[0].text_body).not.toContain('carol@');
    expect(rows[0].text_body).toContain(`your first customer of ${PROGRAM}`);
    expect(rows[0].html_body).toMatch(/^<!doctype html>.*<p>Hi Pat,<\/p>/);
    expect(sent[0].raw).toMatch(/Content-Type: text\/html/);
  });

  it('follows the switches: the first customer gets the new-customer e-mail when only that one is on; none when both are off', async () => {
    const onlyNew = await newPartner(t, org, { first_customer_email_active: false });
    await createCustomer(t, org, onlyNew);
    expect((await mailOf(t, onlyNew)).kinds).toEqual(['partner_new_customer']);

    const onlyFirst = await newPartner(t, org, { new_customer_email_active: false });
    await createCustomer(t, org, onlyFirst);
    await createCustomer(t, org, onlyFirst);
    expect((await mailOf(t, onlyFirst)).kinds).toEqual(['partner_first_customer']);

    const none = await newPartner(t, org, { first_customer_email_active: false, new_customer_email_active: false });
    await createCustomer(t, org, none);
    expect((await mailOf(t, none)).kinds).toEqual([]);

    // Switched off later: nothing more.
    const later = await newPartner(t, org);
    await createCustomer(t, org, later);
    const off = await t.request.put(`/v1/partners/${later.id}`).set(org.auth).send({ new_customer_email_active: false });
    expect(off.status).toBe(200);
    await createCustomer(t, org, later);
    expect((await mailOf(t, later)).kinds).toEqual(['partner_first_customer']);
  });

  it('counts a lead made by the script (svc.js signup) as a customer', async () => {
    const partner = await newPartner(t, org);
    const link = await createLink(t, org, partner);
    const post = (path: string, body: Record<string, unknown>) =>
      t.request
        .post(path)
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify({ key: org.public_key, ...body }));
    const click = await post('/v1/track/click', { param: link.param, value: link.value });
    expect(click.status).toBe(200);
    const signup = await post('/v1/track/signup', { click_id: click.body.data.click_id, identifier: 'erin@example.com' });
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    expect((await mailOf(t, partner)).kinds).toEqual(['partner_first_customer']);
  });

  it('names exactly one first customer when several arrive at once', async () => {
    const partner = await newPartner(t, org);
    const clicks = await Promise.all(Array.from({ length: 5 }, () => clickOf(t, org, partner)));
    const made = await Promise.all(
      clicks.map((c) =>
        t.request
          .post('/v1/customers')
          .set(org.auth)
          .send({ email: uniqueEmail('rush'), click_id: c.id }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const { kinds } = await mailOf(t, partner);
    expect(kinds.filter((k) => k === 'partner_first_customer')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'partner_new_customer')).toHaveLength(4);
  });

  it('queues nothing when the customer is refused', async () => {
    const partner = await newPartner(t, org);
    const customer = await createCustomer(t, org, partner, { email: 'once@example.com' });
    const again = await t.request.post('/v1/customers').set(org.auth).send({ email: 'once@example.com', partner_id: partner.id });
    expect(again.status).toBe(409);
    expect(customer.email).toBe('once@example.com');
    expect((await mailOf(t, partner)).kinds).toEqual(['partner_first_customer']);
  });
});

describe('partner e-mails: commissions paid', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ program: PROGRAM }] });

  /** A partner with one customer and one payment of 4900 on the default flow (a 980 commission). */
  async function paidCommission(switches: Record<string, boolean> = {}) {
    const partner = await newPartner(t, org, { new_customer_email_active: false, first_customer_email_active: false, ...switches });
    const customer = await createCustomer(t, org, partner);
    const transaction = await createTransaction(t, org, customer, { amount: 4900, currency: 'USD' });
    const [commission] = await commissionsOf(t, org, transaction);
    return { partner, commission };
  }

  const markPaid = (id: string) => t.request.put(`/v1/commissions/${id}`).set(org.auth).send({ status: 'paid' });

  it('tells the partner the amount once when their commission is marked paid', async () => {
    const { partner, commission } = await paidCommission();
    expect((await markPaid(commission.id)).status).toBe(200);
    expect((await markPaid(commission.id)).status).toBe(200);
    const { sent, rows, kinds } = await mailOf(t, partner);
    expect(kinds).toEqual(['partner_commission_paid']);
    expect(sent.map((m) => m.subject)).toEqual([`${PROGRAM} paid you $9.80`]);
    expect(rows[0].text_body).toContain('a commission of $9.80 (payment reference po_');
  });

  it('sends nothing while payout_paid_email_active is off', async () => {
    const { partner, commission } = await paidCommission({ payout_paid_email_active: false });
    expect((await markPaid(commission.id)).status).toBe(200);
    expect((await mailOf(t, partner)).kinds).toEqual([]);
  });
});
