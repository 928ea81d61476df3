import { describe, expect, it } from 'vitest';
import { previewRefund } from '../../src/resources/transactions/transactions.service.js';
import { dashboardAgent } from '../support/dashboard.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createPartner,
  createProgram,
  createTransaction,
  fullCommission,
  quietProgram,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';

/**
 * The dashboard's customers and transactions pages (pages/customers.tsx, pages/transactions.tsx):
 * lists and their filters, another organization's or program's ids, and the refund's preview,
 * which must show what the refund then does. The browser flow is in e2e/dashboard-transactions.spec.ts.
 */

const usd = (cents: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(cents / 100);

/** The rows of the first table.data of a page, as text per cell (tags dropped). */
function tableRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      cell[1]
        .replace(/<[^>]+>/g, ' ')
        .replace(/&amp;/g, '&')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

/**
 * A program where a payment earns two commissions of one partner: 20 % pending (scheduled) and
 * 10 % approved at once, which the test then marks paid.
 */
async function twoFlowProgram(t: TestApp, org: TestOrg) {
  const program = await quietProgram(t, org);
  await createFlow(t, org, {
    program_id: program.id,
    reward: { type: 'percentage', value: 20 },
    approval: { type: 'scheduled', delay_days: 30 },
  });
  await createFlow(t, org, { program_id: program.id, reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } });
  const partner = await createPartner(t, org, { program_id: program.id });
  const customer = await createCustomer(t, org, partner);
  return { program, partner, customer };
}

describe('dashboard: customers and transactions', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  it('lists customers with their partner, status, lead and first payment, filtered by search, status and partner', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const base = `/dashboard/programs/${program.id}/customers`;
    const empty = await agent.get(base);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No customers yet.');

    const alice = await createPartner(t, org, { program_id: program.id, first_name: 'Alice', last_name: 'Able' });
    const bob = await createPartner(t, org, { program_id: program.id, first_name: 'Bob', last_name: 'Baker' });
    const shopper = await createCustomer(t, org, alice, { email: uniqueEmail('shopper'), lead_at: '2026-01-05T10:00:00Z' });
    const browser = await createCustomer(t, org, bob, { email: uniqueEmail('browser') });
    await createTransaction(t, org, shopper, { created_at: '2026-02-03T12:00:00Z' });
    await createTransaction(t, org, shopper, { created_at: '2026-03-01T12:00:00Z' });

    const all = await agent.get(base);
    expect(all.status).toBe(200);
    const rows = tableRows(all.text);
    expect(rows).toHaveLength(2);
    const shopperRow = rows.find((r) => r[0].includes(shopper.email))!;
    expect(shopperRow.slice(1)).toEqual(['Alice Able', 'active', '2026-01-05', '2026-02-03']);
    expect(rows.find((r) => r[0].includes(browser.email))!.slice(1, 3)).toEqual(['Bob Baker', 'lead']);
    expect(all.text).toContain(`href="/dashboard/programs/${program.id}/partners/${alice.id}"`);
    expect(all.text).toContain('2 in all');

    const bySearch = await agent.get(base).query({ search: 'SHOPPER' });
    expect(tableRows(bySearch.text).map((r) => r[0])).toEqual([shopper.email]);
    const byStatus = await agent.get(base).query({ status: 'lead' });
    expect(tableRows(byStatus.text).map((r) => r[0])).toEqual([browser.email]);
    const byPartner = await agent.get(base).query({ partner_id: alice.id, status: '' });
    expect(tableRows(byPartner.text).map((r) => r[0])).toEqual([shopper.email]);
    const none = await agent.get(base).query({ search: 'nobody-at-all' });
    expect(none.text).toContain('No customer matches these filters.');
    expect((await agent.get(base).query({ status: 'sleeping' })).status).toBe(400);

    const detail = await agent.get(`${base}/${shopper.id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain(usd(20_000));
    expect(tableRows(detail.text)).toHaveLength(2);
    expect(detail.text).toContain('Alice Able');
  });

  it('lists transactions with amounts and refunds, filtered by partner, customer and charge', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const base = `/dashboard/programs/${program.id}/transactions`;
    expect((await agent.get(base)).text).toContain('No transactions yet.');

    const alice = await createPartner(t, org, { program_id: program.id, first_name: 'Alice', last_name: 'Able' });
    const bob = await createPartner(t, org, { program_id: program.id, first_name: 'Bob', last_name: 'Baker' });
    const a = await createCustomer(t, org, alice);
    const b = await createCustomer(t, org, bob);
    const ta = await createTransaction(t, org, a, { amount: 4900 });
    const tb = await createTransaction(t, org, b, { amount: 12_000 });
    expect((await t.request.put(`/v1/transactions/${tb.id}/refund`).set(org.auth).send({ amount: 2000 })).status).toBe(200);

    const all = tableRows((await agent.get(base)).text);
    expect(all).toHaveLength(2);
    expect(all[0].slice(1)).toEqual([b.email, 'Bob Baker', 'partially refunded', usd(12_000), usd(2000)]);
    expect(all[1].slice(1)).toEqual([a.email, 'Alice Able', 'paid', usd(4900), '—']);

    const byPartner = tableRows((await agent.get(base).query({ partner_id: alice.id })).text);
    expect(byPartner.map((r) => r[1])).toEqual([a.email]);
    const byCustomer = tableRows((await agent.get(base).query({ customer_id: b.id })).text);
    expect(byCustomer.map((r) => r[1])).toEqual([b.email]);
    const byCharge = tableRows((await agent.get(base).query({ charge_id: ta.charge_id })).text);
    expect(byCharge.map((r) => r[1])).toEqual([a.email]);
    expect((await agent.get(base).query({ charge_id: 'ch_nothing' })).text).toContain('No transaction matches these filters.');
    // A customer id the program does not have is a 404, as a partner's is (the picker's rule).
    expect((await agent.get(base).query({ customer_id: 'cust_nothing' })).status).toBe(404);

    const page = await agent.get(`${base}/${tb.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Preview refund');
    expect(page.text).toContain('value="100.00"');
  });

  it("answers 404 for another organization's or another program's customers, transactions and partners", async () => {
    const [org, other] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const theirPartner = await createPartner(t, other);
    const theirCustomer = await createCustomer(t, other, theirPartner);
    const theirTxn = await createTransaction(t, other, theirCustomer);
    const program = await createProgram(t, org);
    const ourPartner = await createPartner(t, org);
    const ourCustomer = await createCustomer(t, org, ourPartner);
    const ourTxn = await createTransaction(t, org, ourCustomer);
    const here = `/dashboard/programs/${org.program_id}`;
    const elsewhere = `/dashboard/programs/${program.id}`;

    expect((await agent.get(`/dashboard/programs/${other.program_id}/customers`)).status).toBe(404);
    expect((await agent.get(`/dashboard/programs/${other.program_id}/transactions`)).status).toBe(404);
    expect((await agent.get(`${here}/customers/${theirCustomer.id}`)).status).toBe(404);
    expect((await agent.get(`${here}/transactions/${theirTxn.id}`)).status).toBe(404);
    expect((await agent.get(`${here}/customers`).query({ partner_id: theirPartner.id })).status).toBe(404);
    expect((await agent.get(`${here}/transactions`).query({ partner_id: theirPartner.id })).status).toBe(404);
    // Ours, but of another program than the URL's.
    expect((await agent.get(`${elsewhere}/customers/${ourCustomer.id}`)).status).toBe(404);
    expect((await agent.get(`${elsewhere}/transactions/${ourTxn.id}`)).status).toBe(404);
    expect((await agent.get(`${elsewhere}/transactions`).query({ partner_id: ourPartner.id })).status).toBe(404);
    for (const [base, txn] of [
      [here, theirTxn],
      [elsewhere, ourTxn],
    ] as const) {
      const preview = await agent.post(`${base}/transactions/${txn.id}/refund/preview`).type('form').send({ amount: '1', _csrf: csrf });
      expect(preview.status).toBe(404);
      const refund = await agent
        .post(`${base}/transactions/${txn.id}/refund`)
        .type('form')
        .send({ amount: '1', refunded_before: '0', confirm: '1', _csrf: csrf });
      expect(refund.status).toBe(404);
    }
    expect((await t.request.get(`/v1/transactions/${theirTxn.id}`).set(other.auth)).body.data.refunded_amount).toBe(0);
    expect((await t.request.get(`/v1/transactions/${ourTxn.id}`).set(org.auth)).body.data.refunded_amount).toBe(0);
  });

  it('previews a refund with exactly what the refund then does to the commissions, partial and then full', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const { program, customer } = await twoFlowProgram(t, org);
    const txn = await createTransaction(t, org, customer, { amount: 10_000 });
    const made = await commissionsOf(t, org, txn);
    const pending = made.find((c) => c.amount === 2000)!;
    const immediate = made.find((c) => c.amount === 1000)!;
    expect([pending.amount, pending.status, immediate.amount, immediate.status]).toEqual([2000, 'pending', 1000, 'approved']);
    expect((await t.request.put(`/v1/commissions/${immediate.id}`).set(org.auth).send({ status: 'paid' })).status).toBe(200);
    const base = `/dashboard/programs/${program.id}/transactions/${txn.id}`;

    // A partial refund of $25.00: −$5.00 pending on the pending commission, −$2.50 approved on the paid one.
    const preview = await agent.post(`${base}/refund/preview`).type('form').send({ amount: '25', _csrf: csrf });
    expect(preview.status, preview.text).toBe(200);
    // Each commission named by its reward's amount, never by its id.
    const pendingReward = `The ${usd(2000)} reward`;
    const paidReward = `The ${usd(1000)} reward`;
    const byReward = (rows: string[][], first: string) => [...rows].sort((a, b) => (a[0] === first ? -1 : b[0] === first ? 1 : 0));
    const effects = byReward(tableRows(preview.text), pendingReward);
    expect(effects).toEqual([
      [pendingReward, 'pending', usd(2000), usd(500), usd(1500), expect.stringContaining(`refund entry of ${usd(-500)}, pending`)],
      [paidReward, 'paid', usd(1000), usd(250), usd(750), expect.stringContaining(`refund entry of ${usd(-250)}, approved`)],
    ]);
    expect(preview.text).not.toContain(`>${pending.id}<`);
    expect(preview.text).toContain('name="refunded_before" value="0"');
    // Nothing changed by the preview.
    expect((await commissionsOf(t, org, txn)).length).toBe(2);
    expect((await t.request.get(`/v1/transactions/${txn.id}`).set(org.auth)).body.data.refunded_amount).toBe(0);

    const done = await agent.post(`${base}/refund`).type('form').send({ amount: '25.00', refunded_before: '0', confirm: '1', _csrf: csrf });
    expect(done.status, done.text).toBe(303);
    expect(done.headers.location).toBe(`${base}?notice=transaction-refunded`);
    const after = await commissionsOf(t, org, txn);
    const entries = await Promise.all(after.slice(2).map((c) => fullCommission(t, org, c.id)));
    expect(entries.map((e) => [e.type, Number(e.amount), e.status])).toEqual(
      expect.arrayContaining([
        ['refund', -500, 'pending'],
        ['refund', -250, 'approved'],
      ]),
    );
    expect(entries).toHaveLength(2);
    const shown = await agent.get(done.headers.location);
    expect(shown.text).toContain('Refund recorded.');
    expect(shown.text).toContain(`Refund entry of the ${usd(2000)} reward`);
    expect(shown.text).toContain(usd(2250)); // commission counted: 1500 + 750

    // The rest: the pending commission is marked refunded, the paid one gets −$7.50 approved.
    const organizationId = org.organization_id;
    const planned = await previewRefund(t.deps.db, organizationId, txn.id, undefined);
    expect(planned.refund).toBe(7500);
    expect(planned.after).toEqual({ refunded_amount: 10_000, status: 'refunded' });
    const plannedRows = planned.effects.map((e) => [e.reward_id, e.action, e.before, e.after, e.entry?.amount ?? null]);
    expect(byReward(plannedRows as string[][], pending.id)).toEqual([
      [pending.id, 'refunded', 1500, 0, null],
      [immediate.id, 'entry', 750, 0, -750],
    ]);
    const rest = await agent.post(`${base}/refund/preview`).type('form').send({ amount: '75', _csrf: csrf });
    expect(byReward(tableRows(rest.text), pendingReward).map((r) => r.slice(0, 5))).toEqual([
      [pendingReward, 'pending', usd(1500), usd(1500), usd(0)],
      [paidReward, 'paid', usd(750), usd(750), usd(0)],
    ]);
    const confirmed = await agent
      .post(`${base}/refund`)
      .type('form')
      .send({ amount: '75.00', refunded_before: '2500', confirm: '1', _csrf: csrf });
    expect(confirmed.status).toBe(303);
    const final = await commissionsOf(t, org, txn);
    expect(final.find((c) => c.id === pending.id)!.status).toBe('refunded');
    const newest = final.filter((c) => !after.some((a) => a.id === c.id));
    expect(newest.map((c) => [c.amount, c.status])).toEqual([[-750, 'approved']]);
    const fullyRefunded = await agent.get(base);
    expect(fullyRefunded.text).toContain('nothing is left to refund');
    expect(fullyRefunded.text).not.toContain('Preview refund');
  });

  it('refuses a bad amount, an unconfirmed or stale refund, and a request without the CSRF token, changing nothing', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const { program, customer } = await twoFlowProgram(t, org);
    const txn = await createTransaction(t, org, customer, { amount: 10_000 });
    const before = await commissionsOf(t, org, txn);
    const base = `/dashboard/programs/${program.id}/transactions/${txn.id}`;
    const unchanged = async () => {
      const now = (await t.request.get(`/v1/transactions/${txn.id}`).set(org.auth)).body.data;
      expect([now.refunded_amount, now.status]).toEqual([0, 'paid']);
      expect(await commissionsOf(t, org, txn)).toEqual(before);
    };

    for (const amount of ['0', '0.00', '100.01', '250', 'ten', '1.234', '-5', '']) {
      const preview = await agent.post(`${base}/refund/preview`).type('form').send({ amount, _csrf: csrf });
      expect(preview.status, amount).toBe(400);
      expect(preview.text).toContain('role="alert"');
      // The message beside the field, in words, and what was typed kept.
      expect(preview.text).toMatch(/aria-invalid="true" aria-describedby="refund-amount-hint refund-amount-error" name="amount"/);
      expect(preview.text).not.toContain('Invalid amount');
      if (amount) expect(preview.text).toContain(`value="${amount}"`);
      const refund = await agent.post(`${base}/refund`).type('form').send({ amount, refunded_before: '0', confirm: '1', _csrf: csrf });
      expect(refund.status, amount).toBe(400);
    }
    const tooMuch = await agent.post(`${base}/refund/preview`).type('form').send({ amount: '100.01', _csrf: csrf });
    expect(tooMuch.text).toContain('<span class="field-error" id="refund-amount-error">Only 10000 cents are left to refund.</span>');
    await unchanged();

    const unconfirmed = await agent.post(`${base}/refund`).type('form').send({ amount: '10', refunded_before: '0', _csrf: csrf });
    expect(unconfirmed.status).toBe(400);
    const stale = await agent.post(`${base}/refund`).type('form').send({ amount: '10', refunded_before: '500', confirm: '1', _csrf: csrf });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('preview the refund again');
    for (const path of ['refund/preview', 'refund']) {
      const noToken = await agent.post(`${base}/${path}`).type('form').send({ amount: '10', refunded_before: '0', confirm: '1' });
      expect(noToken.status).toBe(403);
      const badToken = await agent
        .post(`${base}/${path}`)
        .type('form')
        .send({ amount: '10', refunded_before: '0', confirm: '1', _csrf: `${csrf.slice(1)}x` });
      expect(badToken.status).toBe(403);
    }
    await unchanged();
  });

  it('shows a customer with their transactions and commissions, and what to do when there are none', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const { program, partner, customer } = await twoFlowProgram(t, org);
    const base = `/dashboard/programs/${program.id}/customers/${customer.id}`;
    const fresh = await agent.get(base);
    expect(fresh.status).toBe(200);
    expect(fresh.text).toContain('No payments yet.');
    expect(fresh.text).toContain(`href="/dashboard/programs/${program.id}/partners/${partner.id}"`);

    const txn: ApiObject = await createTransaction(t, org, customer, { amount: 5000 });
    const page = await agent.get(base);
    expect(page.text).toContain(`href="/dashboard/programs/${program.id}/transactions/${txn.id}"`);
    expect(page.text).toContain(usd(1500)); // commission: 20 % + 10 % of $50.00
    expect(page.text).toContain(usd(5000));
    expect(page.text).not.toContain('No payments yet.');
  });
});
