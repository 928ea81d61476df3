import { describe, expect, it } from 'vitest';
import { maskEmail } from '../../src/resources/partners/partner-emails.js';
import {
  type ApiObject,
  createCustomer,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueEmail,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { portalAgent } from '../support/portal.js';

/**
 * The portal's referrals (ingest/docs/partner-portal.md): the partner's own customers (masked),
 * commissions (with why one was not paid), payouts with a page each, and the next payout against
 * their minimum. Nothing of another partner shows, and another partner's payout is a 404.
 */

const NOT_FOUND = 'There is no such page in this partner portal.';

/** The text a page shows (tags, attributes and the chart's data left out): where an id must not stand. */
const visibleText = (html: string) => html.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').replace(/<[^>]*>/g, ' ');
const SVC_ID = /\b(?:po|comm|cust|txn|part|lnk)_[0-9A-Za-z]{8,}/;

/** The HTML of one section of a page (by its id), and the rows of its table body. */
function section(html: string, id: string): { html: string; rows: string[] } {
  const start = html.indexOf(`<section aria-labelledby="${id}-title" id="${id}">`);
  expect(start, `section #${id}`).toBeGreaterThan(-1);
  const part = html.slice(start, html.indexOf('</section>', start));
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(part)?.[1] ?? '';
  return { html: part, rows: body.split('</tr>').filter((r) => r.includes('<tr')) };
}

describe('portal referrals', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });

  const partnerIn = (program: ApiObject, fields: Record<string, unknown> = {}, who: TestOrg = org) =>
    createPartner(t, who, {
      program_id: program.id,
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
      ...fields,
    });
  /** A payment of a new customer of the partner on the program's default flow (20 %); its reward, approved unless told otherwise. */
  async function payment(partner: ApiObject, amount: number, status = 'approved', who: TestOrg = org) {
    const customer = await createCustomer(t, who, partner, { email: uniqueEmail('buyer') });
    const txn = await createTransaction(t, who, customer, { amount });
    const rewards = await t.request.get('/v1/commissions').set(who.auth).query({ program_id: partner.program_id, transaction_id: txn.id });
    const reward = rewards.body.data[0];
    if (status !== 'pending') {
      const put = await t.request.put(`/v1/commissions/${reward.id}`).set(who.auth).send({ status });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    return { customer, txn, reward };
  }
  async function generate(program: ApiObject, who: TestOrg = org) {
    const res = await t.request.post('/v1/payouts/generate').set(who.auth).send({ program_id: program.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.payouts as ApiObject[];
  }

  it('shows a new partner what to do where there is nothing yet', async () => {
    const program = await createProgram(t, org, { minimum_payout: 5000 });
    const partner = await partnerIn(program, { payout_method: 'none', payout_details: {} });
    const { agent, base } = await portalAgent(t, program, partner.email);
    const page = await agent.get(`${base}/referrals`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain(`No customers yet: share your link from <a href="${base}/">Home</a>`);
    expect(page.text).toContain('No commissions yet');
    expect(page.text).toContain('No payouts yet');
    expect(page.text).toContain('Nothing earned yet. Commissions are paid out once they are approved and add up to at least $50.00.');
    expect(page.text).toContain(`Choose how you want to be paid in <a href="${base}/settings">Settings</a>`);
    expect(page.text).toContain('aria-current="page">Referrals</a>');
    expect(page.text).not.toMatch(/style=|<script>/);
  });

  it("lists only the partner's customers, e-mails masked, with status, revenue net of refunds and pages", async () => {
    const program = await createProgram(t, org);
    const partner = await partnerIn(program);
    const other = await partnerIn(program);
    const suffix = uniqueSuffix();
    const paying = await createCustomer(t, org, partner, { email: `zoe-${suffix}@paying.example` });
    const txn = await createTransaction(t, org, paying, { amount: 12_000 });
    expect((await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({ amount: 2000 })).status).toBe(200);
    await createTransaction(t, org, paying, { amount: 500, currency: 'EUR' });
    const lead = await createCustomer(t, org, partner, { email: `lee-${suffix}@lead.example` });
    const noEmail = await createCustomer(t, org, partner, { email: undefined, customer_id: `user-${suffix}` });
    const theirs = await createCustomer(t, org, other, { email: `kim-${suffix}@theirs.example` });

    const { agent, base } = await portalAgent(t, program, partner.email);
    const page = await agent.get(`${base}/referrals`);
    expect(page.status).toBe(200);
    for (const full of [paying.email, lead.email, theirs.email, `user-${suffix}`]) expect(page.text).not.toContain(full);
    expect(page.text).not.toContain(maskEmail(theirs.email));
    const { rows } = section(page.text, 'customers');
    expect(rows).toHaveLength(3);
    // Newest first: the customer without an e-mail, the lead, the paying one.
    expect(rows[0]).toContain('u•••');
    expect(rows[1]).toContain(maskEmail(lead.email));
    expect(rows[1]).toContain('badge-lead');
    expect(rows[2]).toContain('z•••@paying.example');
    expect(rows[2]).toContain('$100.00 · €5.00');
    expect(page.text).not.toContain(noEmail.id);

    // Pages of ten: the eleventh customer is on the next page, and the link keeps to this list.
    for (let i = 0; i < 9; i++) await createCustomer(t, org, partner, { email: uniqueEmail('more') });
    const first = await agent.get(`${base}/referrals`);
    const firstRows = section(first.text, 'customers');
    expect(firstRows.rows).toHaveLength(10);
    expect(firstRows.html).toContain('12 in all');
    const older = /href="([^"]*customers_after=[^"]*)">Older/.exec(firstRows.html)?.[1];
    expect(older).toBeDefined();
    const next = await agent.get(older!.replace(/&amp;/g, '&'));
    expect(next.status).toBe(200);
    const nextRows = section(next.text, 'customers').rows;
    expect(nextRows).toHaveLength(2);
    expect(nextRows[1]).toContain('z•••@paying.example');
    // Another partner's customer is no cursor of this list.
    expect((await agent.get(`${base}/referrals`).query({ customers_after: theirs.id })).status).toBe(400);
  });

  it('shows each commission with its status, and why a rejected or refunded one earns nothing', async () => {
    const program = await createProgram(t, org);
    const partner = await partnerIn(program);
    const other = await partnerIn(program);
    await payment(partner, 10_000, 'pending');
    await payment(partner, 20_000, 'approved');
    await payment(partner, 30_000, 'rejected');
    const withdrawn = await payment(partner, 40_000, 'pending');
    expect((await t.request.delete(`/v1/transactions/${withdrawn.txn.id}`).set(org.auth)).status).toBe(200);
    const refunded = await payment(partner, 50_000, 'pending');
    expect((await t.request.put(`/v1/transactions/${refunded.txn.id}/refund`).set(org.auth).send({})).status).toBe(200);
    await payment(other, 99_900, 'approved');

    const { agent, base } = await portalAgent(t, program, partner.email);
    const page = await agent.get(`${base}/referrals`);
    const { rows } = section(page.text, 'commissions');
    const byAmount = (text: string) => rows.filter((r) => r.includes(`>${text}<`));
    expect(rows).toHaveLength(5);
    expect(page.text).not.toContain('$199.80');
    expect(byAmount('$20.00')[0]).toContain('badge-pending');
    expect(byAmount('$20.00')[0]).toContain('Waiting for approval.');
    expect(byAmount('$40.00')[0]).toContain('badge-approved');
    expect(byAmount('$60.00')[0]).toContain('badge-rejected');
    expect(byAmount('$60.00')[0]).toContain(`Not approved by the ${program.name} team.`);
    expect(byAmount('$80.00')[0]).toContain('badge-rejected');
    expect(byAmount('$80.00')[0]).toContain('the payment was withdrawn');
    expect(byAmount('$100.00')[0]).toContain('badge-refunded');
    expect(byAmount('$100.00')[0]).toContain('was refunded');
    for (const r of rows) expect(r).toMatch(/b•••@example\.com/);
  });

  it("shows the merchant's reason of a rejection, escaped, and the usual note once it is cleared", async () => {
    const program = await createProgram(t, org);
    const partner = await partnerIn(program);
    const { reward } = await payment(partner, 10_000, 'pending');
    const reason = 'Self-referral: <b>your own</b> purchase & not eligible';
    const put = await t.request.put(`/v1/commissions/${reward.id}`).set(org.auth).send({ status: 'rejected', rejection_reason: reason });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const { agent, base } = await portalAgent(t, program, partner.email);
    const row = async () => section((await agent.get(`${base}/referrals`)).text, 'commissions').rows[0];
    const shown = await row();
    expect(shown).toContain('badge-rejected');
    expect(shown).toContain(
      `Not approved by the ${program.name} team: Self-referral: &lt;b>your own&lt;/b> purchase &amp; not eligible</span>`,
    );
    expect(shown).not.toContain('<b>');

    // Cleared (null), the row says what it said before there were reasons.
    expect((await t.request.put(`/v1/commissions/${reward.id}`).set(org.auth).send({ rejection_reason: null })).status).toBe(200);
    const cleared = await row();
    expect(cleared).toContain(`Not approved by the ${program.name} team.`);
    expect(cleared).not.toContain('Self-referral');
  });

  it('shows the next payout against the minimum, the payouts, and a page for each of them', async () => {
    const program = await createProgram(t, org, { minimum_payout: 5000, currency_code: 'USD' });
    const partner = await partnerIn(program);
    const other = await partnerIn(program);
    const { agent, base } = await portalAgent(t, program, partner.email);

    const first = await payment(partner, 10_000);
    const below = await agent.get(`${base}/referrals`);
    expect(section(below.text, 'next-payout').html).toContain(
      '$30.00 more to reach the minimum payout of $50.00 ($20.00 approved so far).',
    );
    expect(section(below.text, 'next-payout').html).toContain('Paid by PayPal.');

    const second = await payment(partner, 20_000);
    await payment(partner, 5000, 'pending');
    const above = section((await agent.get(`${base}/referrals`)).text, 'next-payout').html;
    expect(above).toContain('You will be paid $60.00 in the next payout. $10.00 is waiting for approval.');

    await payment(other, 50_000);
    const made = await generate(program);
    const payout = made.find((p) => p.partner_id === partner.id)!;
    const otherPayout = made.find((p) => p.partner_id === other.id)!;
    expect(payout).toMatchObject({ amount: 6000, commission_count: 2 });
    const inPayout = section((await agent.get(`${base}/referrals`)).text, 'next-payout').html;
    expect(inPayout).toContain('Nothing to pay for now. $60.00 is in a payout on its way to you.');
    const paid = await t.request.put(`/v1/payouts/${payout.id}`).set(org.auth).send({ status: 'paid', reference: 'PAYPAL-BATCH-4711' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);

    const page = await agent.get(`${base}/referrals`);
    const payouts = section(page.text, 'payouts');
    expect(payouts.rows).toHaveLength(1);
    expect(payouts.rows[0]).toContain(`href="${base}/payouts/${payout.id}"`);
    expect(payouts.rows[0]).toContain('$60.00');
    expect(payouts.rows[0]).toContain('badge-paid');
    expect(payouts.rows[0]).toContain('PAYPAL-BATCH-4711');
    expect(page.text).not.toContain(otherPayout.id);
    // Ids are in links, never shown as text in the rows.
    expect(visibleText(page.text)).not.toMatch(SVC_ID);

    const one = await agent.get(`${base}/payouts/${payout.id}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain('Payout of $60.00');
    expect(one.text).toContain('PAYPAL-BATCH-4711');
    expect(one.text).toContain(`PayPal e-mail address: ${partner.payout_details.email}`);
    // Its page shows its id once, to copy for the program's team.
    expect(one.text).toContain(`<code>${payout.id}</code> <button type="button" class="copy" data-copy="${payout.id}">`);
    expect(visibleText(one.text).replace(payout.id, '')).not.toMatch(SVC_ID);
    const commissionRows = /<tbody>([\s\S]*?)<\/tbody>/
      .exec(one.text)![1]
      .split('</tr>')
      .filter((r) => r.includes('<tr'));
    expect(commissionRows).toHaveLength(2);
    expect(commissionRows.join('')).toContain('$20.00');
    expect(commissionRows.join('')).toContain('$40.00');
    for (const c of [first.customer, second.customer]) {
      expect(one.text).not.toContain(c.email);
      expect(one.text).toContain(maskEmail(c.email));
    }

    // Another partner's payout (same program, another organization) and an unknown id: the same 404.
    const elsewhere = await createProgram(t, otherOrg);
    const stranger = await partnerIn(elsewhere, {}, otherOrg);
    await payment(stranger, 50_000, 'approved', otherOrg);
    const [foreign] = await generate(elsewhere, otherOrg);
    for (const id of [otherPayout.id, foreign.id, 'po_nope', first.reward.id]) {
      const res = await agent.get(`${base}/payouts/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.text).toContain(NOT_FOUND);
      expect(res.text).not.toContain('$100.00');
    }
  });

  it('works the same in an iframe, every link carrying the embed token', async () => {
    const program = await createProgram(t, org);
    const partner = await partnerIn(program);
    await payment(partner, 10_000);
    const [payout] = await generate(program);
    const made = await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(org.auth).send({});
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const path = new URL(made.body.data[0].url).pathname;
    const page = await t.request.get(`${path}/referrals`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="${path}/payouts/${payout.id}"`);
    const one = await t.request.get(`${path}/payouts/${payout.id}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain(`href="${path}/referrals#payouts"`);
    for (const href of one.text.matchAll(/href="(\/p\/[^"]*)"/g)) expect(href[1].startsWith(path)).toBe(true);
  });
});
