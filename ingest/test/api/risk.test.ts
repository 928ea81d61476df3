import { beforeAll, describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../../src/resources/commissions/approval-job.js';
import { checkClickFlooding } from '../../src/resources/risk/risk-job.js';
import { CHROME_ON_LINUX, SAFARI_ON_MAC } from '../support/browsers.js';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createLink,
  createPartner,
  createTransaction,
  partnerInput,
  quietProgram,
  uniqueEmail,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { STORAGE } from '../support/harness.js';
import { expectPayoutsTrue } from '../support/payout-invariants.js';
import { portalAgent } from '../support/portal.js';
import { DAY_MS } from '../support/time.js';

/**
 * The fraud and risk rules (ingest/docs/risk.md): each fires on its case and stays quiet on a
 * near miss; an open event holds the money it concerns from the approval job, payout generation
 * and balances; a resolution releases or rejects exactly what it held, in SQL; events go out.
 */

const UA = CHROME_ON_LINUX;
const OTHER_UA = SAFARI_ON_MAC;

describe('fraud and risk', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let program: ApiObject;

  beforeAll(async () => {
    // A program whose only flow pays 10 % of each payment, scheduled for approval the same day.
    program = await quietProgram(t, org);
    await createFlow(t, org, {
      program_id: program.id,
      reward: { type: 'percentage', value: 10 },
      approval: { type: 'scheduled', delay_days: 0 },
    });
  });

  const partnerOf = (fields: Record<string, unknown> = {}) =>
    createPartner(t, org, { program_id: program.id, group_id: program.default_group_id, ...fields });
  const eventsOf = async (query: Record<string, unknown>) => {
    const res = await t.request
      .get('/v1/risk-events')
      .set(org.auth)
      .query({ program_id: program.id, limit: 100, ...query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as ApiObject[];
  };
  const setRules = async (changes: Record<string, unknown>) => {
    const res = await t.request.put(`/v1/programs/${program.id}/risk-rules`).set(org.auth).send(changes);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data[0];
  };
  const post = (path: string, body: Record<string, unknown>, ua = UA) =>
    t.request.post(path).set('Content-Type', 'text/plain').set('User-Agent', ua).send(JSON.stringify(body));
  async function scriptClick(partner: ApiObject, extra: Record<string, unknown> = {}, ua = UA): Promise<string> {
    const link = await createLink(t, org, partner);
    const res = await post('/v1/track/click', { key: program.public_key, param: link.param, value: link.value, ...extra }, ua);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.click_id;
  }
  async function scriptSignup(clickId: string, identifier = uniqueEmail('cust'), ua = UA): Promise<string> {
    const res = await post('/v1/track/signup', { key: program.public_key, click_id: clickId, identifier }, ua);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.customer_id;
  }
  const resolve = (id: string, body: Record<string, unknown>) => t.request.post(`/v1/risk-events/${id}/resolve`).set(org.auth).send(body);
  const commissionRow = (id: string) => t.storage.db.selectFrom('commissions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const balanceOf = async (partnerId: string) => {
    const res = await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: partnerId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data[0].amounts[0] as ApiObject;
  };
  /** A customer of the partner with one payment of 10,000: its commission (1,000, pending, due now). */
  async function paidCustomer(partner: ApiObject, fields: Record<string, unknown> = {}) {
    const customer = await createCustomer(t, org, partner, fields);
    const txn = await createTransaction(t, org, customer, { created_at: new Date(Date.now() - DAY_MS).toISOString() });
    const [commission] = await commissionsOf(t, org, txn);
    return { customer, txn, commission };
  }

  describe('self-referral', () => {
    it("flags a customer whose e-mail is the partner's, or their payout e-mail, however it is written", async () => {
      const partner = await partnerOf({ email: `Ann.Lee.${uniqueSuffix()}@example.com` });
      const shouted = await createCustomer(t, org, partner, { email: partner.email.toUpperCase() });
      const gmail = `jo.doe.${uniqueSuffix().toLowerCase()}@gmail.com`;
      const paid = await partnerOf({ payout_method: 'paypal', payout_details: { email: gmail } });
      const dotless = await createCustomer(t, org, paid, { email: `${gmail.split('@')[0].replaceAll('.', '')}+shop@googlemail.com` });

      const [byEmail] = await eventsOf({ partner_id: partner.id, rule: 'self_referral' });
      expect(byEmail).toMatchObject({ status: 'open', customer_id: shouted.id, holds: 'customer', evidence: { matched: ['email'] } });
      const [byPayout] = await eventsOf({ partner_id: paid.id, rule: 'self_referral' });
      expect(byPayout).toMatchObject({ customer_id: dotless.id, evidence: { matched: ['payout_email'] } });
    });

    it('stays quiet on an address that only looks alike: dots count outside Gmail, and another Gmail mailbox is another person', async () => {
      const suffix = uniqueSuffix().toLowerCase();
      const partner = await partnerOf({ email: `first.last.${suffix}@example.com` });
      await createCustomer(t, org, partner, { email: `firstlast.${suffix}@example.com` });
      const gmailPartner = await partnerOf({ email: `jo.doe.${suffix}@gmail.com` });
      await createCustomer(t, org, gmailPartner, { email: `jo.doe.${suffix}1@gmail.com` });
      expect(await eventsOf({ partner_id: partner.id })).toEqual([]);
      expect(await eventsOf({ partner_id: gmailPartner.id })).toEqual([]);
    });

    it("flags a signup from the browser of the partner's portal session, not another browser at the same address", async () => {
      const partner = await partnerOf();
      const { agent, base } = await portalAgent(t, program, partner.email);
      expect((await agent.get(`${base}/`).set('User-Agent', UA)).status).toBe(200);

      const own = await scriptSignup(await scriptClick(partner));
      const neighbour = await scriptSignup(await scriptClick(partner, {}, OTHER_UA), uniqueEmail('cust'), OTHER_UA);
      const events = await eventsOf({ partner_id: partner.id });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ rule: 'self_referral', customer_id: own.toString(), evidence: { matched: ['browser'] } });
      expect(events[0].fingerprint).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(events.some((e) => e.customer_id === neighbour)).toBe(false);
      // Only the fingerprint is kept: no address in SQL.
      const kept = await t.storage.db.selectFrom('partner_browsers').selectAll().where('partner_id', '=', partner.id).execute();
      expect(JSON.stringify(kept)).not.toMatch(/127\.0\.0\.1|::1|ffff/);
    });

    it("writes a portal browser once an hour per process, not on each of the partner's pages", async () => {
      const partner = await partnerOf();
      const { agent, base } = await portalAgent(t, program, partner.email);
      const browsers = () =>
        t.storage.db.selectFrom('partner_browsers').select('visitor_hash').where('partner_id', '=', partner.id).execute();
      expect((await agent.get(`${base}/`).set('User-Agent', UA)).status).toBe(200);
      const [first] = await browsers();
      // The row is taken away behind the process's back: a second page from that browser does not write it again.
      await t.storage.db.deleteFrom('partner_browsers').where('partner_id', '=', partner.id).execute();
      expect((await agent.get(`${base}/`).set('User-Agent', UA)).status).toBe(200);
      expect(await browsers()).toEqual([]);
      // Another browser within the same session is remembered at its first page.
      expect((await agent.get(`${base}/`).set('User-Agent', OTHER_UA)).status).toBe(200);
      const [other] = await browsers();
      expect(other.visitor_hash).not.toBe(first.visitor_hash);
    });
  });

  describe('shared payout account', () => {
    it('flags both partners paid into one PayPal e-mail, each holding its own money', async () => {
      const email = `Pay.Out.${uniqueSuffix()}@gmail.com`;
      const first = await partnerOf({ payout_method: 'paypal', payout_details: { email } });
      const second = await partnerOf({ payout_method: 'wise', payout_details: { email: `payout${email.slice(7).toLowerCase()}` } });
      const [a] = await eventsOf({ partner_id: first.id, rule: 'shared_payout_account' });
      const [b] = await eventsOf({ partner_id: second.id, rule: 'shared_payout_account' });
      expect(a).toMatchObject({ other_partner_id: second.id, holds: 'partner', evidence: { account: 'email' } });
      expect(b).toMatchObject({ other_partner_id: first.id, holds: 'partner' });
    });

    it('flags an IBAN shared through a change of payout details; a payout e-mail shared after its partner was deleted stays quiet', async () => {
      const iban = `DE89${String(Date.now()).slice(-10)}01234567`;
      const first = await partnerOf({ payout_method: 'bank_transfer', payout_details: { iban } });
      const second = await partnerOf({ payout_method: 'paypal', payout_details: { email: uniqueEmail('p') } });
      const changed = await t.request
        .put(`/v1/partners/${second.id}`)
        .set(org.auth)
        .send({ payout_method: 'wire', payout_details: { iban } });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(await eventsOf({ partner_id: second.id, rule: 'shared_payout_account' })).toMatchObject([
        { other_partner_id: first.id, evidence: { account: 'iban' } },
      ]);

      const email = uniqueEmail('shared');
      const gone = await partnerOf({ payout_method: 'paypal', payout_details: { email } });
      expect((await t.request.delete(`/v1/partners/${gone.id}`).set(org.auth)).status).toBe(200);
      const late = await partnerOf({ payout_method: 'paypal', payout_details: { email } });
      expect(await eventsOf({ partner_id: late.id })).toEqual([]);
      expect(await eventsOf({ partner_id: gone.id })).toEqual([]);
    });
  });

  describe('customer rules', () => {
    it('flags a disposable e-mail domain, not an ordinary provider', async () => {
      const partner = await partnerOf();
      const throwaway = await createCustomer(t, org, partner, { email: `someone.${uniqueSuffix()}@mailinator.com` });
      await createCustomer(t, org, partner, { email: `someone.${uniqueSuffix()}@gmail.com` });
      const events = await eventsOf({ partner_id: partner.id });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ rule: 'disposable_email', customer_id: throwaway.id, evidence: { domain: 'mailinator.com' } });
    });

    it('paid-ad traffic and banned referral sources flag only once switched on, on their case alone', async () => {
      const partner = await partnerOf();
      await scriptSignup(await scriptClick(partner, { ads: ['gclid'], referrer: 'https://deals.coupons.example/x' }));
      expect(await eventsOf({ partner_id: partner.id })).toEqual([]);

      const rules = await setRules({
        paid_ad_traffic: { enabled: true },
        banned_referral_source: { enabled: true, hosts: ['Coupons.Example'] },
      });
      expect(rules.banned_referral_source).toEqual({ enabled: true, hosts: ['coupons.example'] });
      try {
        const ad = await scriptSignup(await scriptClick(partner, { ads: ['fbclid', 'utm_source', 'gclid'] }));
        const banned = await scriptSignup(await scriptClick(partner, { referrer: 'https://www.deals.coupons.example/post' }));
        // Near misses: an unknown parameter name alone; a host that only starts like a banned one.
        await scriptSignup(await scriptClick(partner, { ads: ['utm_source'], referrer: 'https://coupons.example.org/' }));
        const events = await eventsOf({ partner_id: partner.id, order: 'asc' });
        expect(events.map((e) => [e.rule, e.customer_id, e.evidence])).toEqual([
          ['paid_ad_traffic', ad, { ad_click_ids: ['gclid', 'fbclid'] }],
          ['banned_referral_source', banned, { referrer_host: 'deals.coupons.example', banned_host: 'coupons.example' }],
        ]);
      } finally {
        await setRules({ paid_ad_traffic: { enabled: false }, banned_referral_source: { enabled: false, hosts: [] } });
      }
    });
  });

  describe('click flooding', () => {
    it('flags more than 20 clicks on one partner’s links from one browser within an hour, the extra clicks recorded; 20 stay quiet', async () => {
      const flooder = await partnerOf();
      const steady = await partnerOf();
      const clicks: string[] = [];
      for (let i = 0; i < 21; i++) clicks.push(await scriptClick(flooder));
      for (let i = 0; i < 20; i++) await scriptClick(steady);
      expect(new Set(clicks).size).toBe(21);

      expect(await checkClickFlooding(t.storage.db)).toBeGreaterThanOrEqual(1);
      const [event] = await eventsOf({ partner_id: flooder.id });
      expect(event).toMatchObject({
        rule: 'click_flooding',
        holds: 'visitor',
        click_id: clicks[20],
        evidence: { clicks_in_hour: 21, max_clicks_per_hour: 20, extra_clicks: 1, first_extra_click_id: clicks[20] },
      });
      expect(await eventsOf({ partner_id: steady.id })).toEqual([]);
      // A second run finds nothing new; the clicks are all there.
      await checkClickFlooding(t.storage.db);
      expect(await eventsOf({ partner_id: flooder.id })).toHaveLength(1);
      const stored = await t.storage.db.selectFrom('clicks').select('id').where('partner_id', '=', flooder.id).execute();
      expect(stored).toHaveLength(21);

      // The flood holds the money of customers from that browser, not of another browser's.
      const held = await scriptSignup(clicks[3]);
      const other = await scriptSignup(await scriptClick(flooder, {}, OTHER_UA), uniqueEmail('cust'), OTHER_UA);
      for (const customer_id of [held, other]) await createTransaction(t, org, { id: customer_id });
      const balance = await balanceOf(flooder.id);
      expect(balance).toMatchObject({ pending: 1000, on_hold: 1000 });
    });
  });

  describe('refund rate', () => {
    it('flags a partner whose refunds pass 30 % of 60 days of revenue once they have 5 payments; 4 payments stay quiet', async () => {
      const partner = await partnerOf();
      const few = await partnerOf();
      const pay = async (p: ApiObject) => createTransaction(t, org, await createCustomer(t, org, p), { amount: 10_000 });
      const refund = (txn: ApiObject) => t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({});
      const mine = [];
      for (let i = 0; i < 5; i++) mine.push(await pay(partner));
      const theirs = [];
      for (let i = 0; i < 4; i++) theirs.push(await pay(few));
      for (const txn of [...theirs.slice(0, 2), mine[0], mine[1], mine[2]]) expect((await refund(txn)).status).toBe(200);
      expect(await eventsOf({ partner_id: few.id })).toEqual([]);
      // Payments older than the 60 days do not count: 3 in the window, all refunded, stay quiet.
      const older = await partnerOf();
      const ninetyDaysAgo = new Date(Date.now() - 90 * 86_400_000).toISOString();
      for (let i = 0; i < 2; i++) {
        await createTransaction(t, org, await createCustomer(t, org, older), { amount: 10_000, created_at: ninetyDaysAgo });
      }
      for (let i = 0; i < 3; i++) expect((await refund(await pay(older))).status).toBe(200);
      expect(await eventsOf({ partner_id: older.id })).toEqual([]);
      const events = await eventsOf({ partner_id: partner.id });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        rule: 'refund_rate',
        holds: 'partner',
        transaction_id: mine[1].id,
        evidence: { payments: 5, revenue: 50_000, refunded: 20_000, percent: 40, max_percent: 30, window_days: 60 },
      });
    });
  });

  describe('held money and its review', () => {
    it('a held commission is never approved by the job nor paid; balances and generation show it apart', async () => {
      const payoutEmail = uniqueEmail('pay');
      const partner = await partnerOf({ payout_method: 'paypal', payout_details: { email: payoutEmail } });
      const held = await paidCustomer(partner, { email: partner.email });
      const clean = await paidCustomer(partner);
      await approveDueCommissions(t.storage.db);
      expect((await commissionRow(held.commission.id)).status).toBe('pending');
      expect((await commissionRow(clean.commission.id)).status).toBe('approved');
      expect(await balanceOf(partner.id)).toMatchObject({ pending: 0, payable: 1000, on_hold: 1000 });

      // Approved by hand, it is still held from payouts.
      expect((await t.request.put(`/v1/commissions/${held.commission.id}`).set(org.auth).send({ status: 'approved' })).status).toBe(200);
      const generated = await t.request
        .post('/v1/payouts/generate')
        .set(org.auth)
        .send({ program_id: program.id, partner_ids: [partner.id] });
      expect(generated.status, JSON.stringify(generated.body)).toBe(201);
      expect(generated.body.data.payouts).toMatchObject([{ partner_id: partner.id, amount: 1000, commission_count: 1 }]);
      const taken = await t.storage.db.selectFrom('payout_commissions').select('commission_id').execute();
      expect(taken.map((r) => r.commission_id)).not.toContain(held.commission.id);
      // The batch file pays the free commission alone (the file of every pending USD payout of the program).
      const file = await t.request
        .get('/v1/payouts/export')
        .query({ program_id: program.id, format: 'paypal', currency: 'USD' })
        .set(org.auth);
      expect(file.status).toBe(200);
      const rows = file.text.split(/\r?\n/).filter((line) => line.startsWith(`${payoutEmail},`));
      expect(rows).toEqual([expect.stringMatching(new RegExp(`^${payoutEmail.replaceAll('.', '\\.')},10\\.00,USD,`))]);

      const again = await t.request
        .post('/v1/payouts/generate')
        .set(org.auth)
        .send({ program_id: program.id, partner_ids: [partner.id] });
      expect(again.body.data.skipped).toEqual([
        { partner_id: partner.id, currency: 'USD', amount: 1000, minimum_payout: expect.any(Number), reason: 'on_hold' },
      ]);
    });

    it('dismiss releases exactly what the event held; the approval job then approves it', async () => {
      const partner = await partnerOf();
      const held = await paidCustomer(partner, { email: partner.email });
      const [event] = await eventsOf({ partner_id: partner.id });
      expect(event.held).toEqual([{ currency: 'USD', amount: 1000, commissions: 1 }]);
      const res = await resolve(event.id, { action: 'dismiss' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data[0]).toMatchObject({ status: 'resolved', resolution: 'dismiss', resolution_reason: null, held: [] });
      await approveDueCommissions(t.storage.db);
      expect((await commissionRow(held.commission.id)).status).toBe('approved');

      expectError(await resolve(event.id, { action: 'dismiss' }), 409, 'conflict_error');
    });

    it('reject_commissions rejects the held ones with the reason the partner sees, and nothing else', async () => {
      const partner = await partnerOf();
      const held = await paidCustomer(partner, { email: partner.email });
      const clean = await paidCustomer(partner);
      const [event] = await eventsOf({ partner_id: partner.id });

      expectError(await resolve(event.id, { action: 'reject_commissions' }), 400, 'invalid_request_error', 'reason');
      expect((await commissionRow(held.commission.id)).status).toBe('pending');

      const res = await resolve(event.id, { action: 'reject_commissions', reason: 'Self-referral' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await commissionRow(held.commission.id)).toMatchObject({ status: 'rejected', rejection_reason: 'Self-referral' });
      expect((await commissionRow(clean.commission.id)).status).toBe('pending');
    });

    it('ban_partner suspends the partner, rejects their pending commissions and resolves every open event of theirs', async () => {
      const partner = await partnerOf({ payout_method: 'paypal', payout_details: { email: uniqueEmail('pay') } });
      const held = await paidCustomer(partner, { email: partner.email });
      const clean = await paidCustomer(partner);
      await createCustomer(t, org, partner, { email: `x.${uniqueSuffix()}@mailinator.com` });
      const events = await eventsOf({ partner_id: partner.id, status: 'open' });
      expect(events.map((e) => e.rule).sort()).toEqual(['disposable_email', 'self_referral']);
      const selfReferral = events.find((e) => e.rule === 'self_referral')!;

      const res = await resolve(selfReferral.id, { action: 'ban_partner', reason: 'Referred themselves' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const row = await t.storage.db.selectFrom('partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'suspended', suspension_reason: 'Referred themselves' });
      for (const c of [held.commission, clean.commission]) {
        expect(await commissionRow(c.id)).toMatchObject({ status: 'rejected', rejection_reason: 'Referred themselves' });
      }
      expect(await eventsOf({ partner_id: partner.id, status: 'open' })).toEqual([]);
      const resolved = await eventsOf({ partner_id: partner.id, status: 'resolved' });
      expect(resolved.map((e) => e.resolution)).toEqual(['ban_partner', 'ban_partner']);

      // Each event's creation and resolution went out through the events outbox.
      const sent = await t.request.get('/v1/events').set(org.auth).query({ limit: 100 });
      const types = (sent.body.data as ApiObject[]).filter((e) => e.data?.partner_id === partner.id).map((e) => e.type);
      expect(types.filter((type) => type.startsWith('risk_event.')).sort()).toEqual([
        'risk_event.created',
        'risk_event.created',
        'risk_event.resolved',
        'risk_event.resolved',
      ]);
    });
  });

  describe('the API', () => {
    it('lists with filters, retrieves, and keeps every organization to its own events', async () => {
      const partner = await partnerOf();
      await createCustomer(t, org, partner, { email: partner.email });
      const [event] = await eventsOf({ partner_id: partner.id, rule: 'self_referral', status: 'open' });
      expect(await eventsOf({ partner_id: partner.id, rule: 'refund_rate' })).toEqual([]);
      const one = await t.request.get(`/v1/risk-events/${event.id}`).set(org.auth);
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual(event);
      expectError(await t.request.get(`/v1/risk-events/${event.id}`).set(otherOrg.auth), 404, 'not_found_error');
      expectError(await resolve(event.id, { action: 'dismiss' }).set(otherOrg.auth), 404, 'not_found_error');
      expectError(await t.request.get('/v1/risk-events').set(org.auth).query({ rule: 'nope' }), 400, 'invalid_request_error', 'rule');
      expectError(await resolve(event.id, { action: 'forgive' }), 400, 'invalid_request_error', 'action');
    });

    it('rules: every field with its default, a change merged field by field, bad input refused with nothing changed', async () => {
      const other = await quietProgram(t, org);
      const read = await t.request.get(`/v1/programs/${other.id}/risk-rules`).set(org.auth);
      expect(read.body.data).toEqual({
        self_referral: { enabled: true },
        shared_payout_account: { enabled: true },
        disposable_email: { enabled: true },
        paid_ad_traffic: { enabled: false },
        banned_referral_source: { enabled: false, hosts: [] },
        click_flooding: { enabled: true, max_clicks_per_hour: 20 },
        refund_rate: { enabled: true, max_percent: 30, min_payments: 5 },
      });
      const changed = await t.request
        .put(`/v1/programs/${other.id}/risk-rules`)
        .set(org.auth)
        .send({ click_flooding: { max_clicks_per_hour: 50 } });
      expect(changed.body.data[0].click_flooding).toEqual({ enabled: true, max_clicks_per_hour: 50 });
      for (const bad of [
        { click_flooding: { max_clicks_per_hour: 0 } },
        { banned_referral_source: { hosts: ['https://x.example/'] } },
        { nope: {} },
      ]) {
        const res = await t.request.put(`/v1/programs/${other.id}/risk-rules`).set(org.auth).send(bad);
        expect(res.status, JSON.stringify(bad)).toBe(400);
      }
      const after = await t.request.get(`/v1/programs/${other.id}/risk-rules`).set(org.auth);
      expect(after.body.data.click_flooding.max_clicks_per_hour).toBe(50);
      expect(after.body.data.banned_referral_source.hosts).toEqual([]);
      expectError(await t.request.get(`/v1/programs/${other.id}/risk-rules`).set(otherOrg.auth), 404, 'not_found_error');
    });
  });
});

// Two processes meet only on PostgreSQL: PGlite serves one statement at a time.
describe.skipIf(STORAGE === 'embedded')('resolutions and payout generation at once on two processes', () => {
  const first = useTestApp({ orgs: 1 });
  const second = useTestApp({ sharesStorageWith: first.t });

  it('two partners saved at once with one payout account are both flagged', async () => {
    const [org] = first.orgs;
    const program = await quietProgram(first.t, org);
    const email = uniqueEmail('twin');
    const create = (app: typeof first.t) =>
      app.request
        .post('/v1/partners')
        .set(org.auth)
        .send({ ...partnerInput(org, { program_id: program.id }), payout_method: 'paypal', payout_details: { email } });
    const made = await Promise.all([create(first.t), create(second.t)]);
    expect(made.map((r) => r.status)).toEqual([201, 201]);
    const events = await first.t.request
      .get('/v1/risk-events')
      .set(org.auth)
      .query({ program_id: program.id, rule: 'shared_payout_account' });
    expect(events.body.data.map((e: ApiObject) => e.partner_id).sort()).toEqual(made.map((r) => r.body.data[0].id).sort());
  });

  it('never pays a held commission: rejected ones are in no payout, released ones are paid once', async () => {
    const { t } = first;
    const [org] = first.orgs;
    const program = await quietProgram(t, org);
    const PARTNERS = 8;
    const held: { partner: ApiObject; event: ApiObject; commissions: string[] }[] = [];
    for (let i = 0; i < PARTNERS; i++) {
      const partner = await createPartner(t, org, {
        program_id: program.id,
        group_id: program.default_group_id,
        payout_method: 'paypal',
        payout_details: { email: uniqueEmail('paypal') },
      });
      // Two approved commissions of the partner's own signup (held) and one of another customer (free).
      const self = await createCustomer(t, org, partner, { email: partner.email });
      const other = await createCustomer(t, org, partner);
      const ids: string[] = [];
      for (const [customer, amount] of [
        [self, 1000 + i],
        [self, 2000 + i],
        [other, 3000 + i],
      ] as const) {
        const res = await t.request
          .post('/v1/commissions')
          .set(org.auth)
          .send({ program_id: program.id, partner_id: partner.id, customer_id: customer.id, amount, status: 'approved' });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids.push(res.body.data[0].id);
      }
      const events = await t.request.get('/v1/risk-events').set(org.auth).query({ partner_id: partner.id });
      expect(events.body.data).toHaveLength(1);
      held.push({ partner, event: events.body.data[0], commissions: ids.slice(0, 2) });
    }

    // One process resolves every event (half dismissed, half rejected) while the other generates payouts again and again.
    const generate = (app: typeof t) => app.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id });
    const resolutions = held.map(({ event }, i) =>
      first.t.request
        .post(`/v1/risk-events/${event.id}/resolve`)
        .set(org.auth)
        .send(i % 2 === 0 ? { action: 'dismiss' } : { action: 'reject_commissions', reason: 'Self-referral' }),
    );
    const generations = Array.from({ length: 6 }, () => generate(second.t));
    const answers = await Promise.all([...resolutions, ...generations]);
    expect(answers.map((a) => a.status)).toEqual([...held.map(() => 200), ...generations.map(() => 201)]);
    expect((await generate(second.t)).status).toBe(201);

    // In SQL: no rejected commission in any payout; every released and every free commission in exactly one.
    const db = t.storage.db;
    const rows = await db
      .selectFrom('commissions as c')
      .leftJoin('payout_commissions as pc', 'pc.commission_id', 'c.id')
      .select(['c.id', 'c.status', 'c.partner_id', 'pc.payout_id'])
      .where('c.program_id', '=', program.id)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(PARTNERS * 3);
    for (const [i, { commissions }] of held.entries()) {
      for (const id of commissions) {
        const row = byId.get(id)!;
        if (i % 2 === 0) expect(row.payout_id, `released ${id}`).not.toBeNull();
        else expect(row, `rejected ${id}`).toMatchObject({ status: 'rejected', payout_id: null });
      }
    }
    const free = rows.filter((r) => !held.some((h) => h.commissions.includes(r.id)));
    expect(free.every((r) => r.payout_id !== null)).toBe(true);
    await expectPayoutsTrue(db, program.id);
  });
});
