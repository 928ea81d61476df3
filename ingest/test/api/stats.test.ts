import { CompiledQuery, Kysely, type KyselyPlugin, PostgresDialect, type QueryId, type RootOperationNode, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { updateCommission } from '../../src/resources/commissions/commissions.service.js';
import { loadPartnerStats } from '../../src/resources/partners/partner-stats.js';
import { refundTransaction } from '../../src/resources/transactions/transactions.service.js';
import {
  type ApiObject,
  clickOf,
  commissionsOf,
  createClick,
  createCustomer,
  createFlow,
  createPartner,
  createProgram,
  createTransaction,
  customerStats,
  defaultFlowOf,
  partnerStats,
  type TestOrg,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { STORAGE } from '../support/harness.js';
import { EVENTUALLY } from '../support/time.js';

/**
 * Partner stats (include[]=stats on list and retrieve, kept by triggers in partner_stats) and
 * customer stats, against exact scripted figures and against a recount from the base tables.
 */

interface PartnerStats {
  total_clicks: number;
  total_customers: number;
  total_revenue: number;
  total_commission: number;
}

const stats = (total_clicks: number, total_customers: number, total_revenue: number, total_commission: number): PartnerStats => ({
  total_clicks,
  total_customers,
  total_revenue,
  total_commission,
});
const ZERO = stats(0, 0, 0, 0);

/** A small deterministic PRNG (mulberry32), so a failing workload can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
  };
}

describe('partner and customer stats', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });

  const api = () => t.request;

  /** GET /v1/partners?program_id&include[]=stats → {partner id: stats} of every partner listed. */
  async function listedStats(programId: string, who: TestOrg = org): Promise<Record<string, PartnerStats>> {
    const res = await api().get('/v1/partners').query({ program_id: programId, 'include[]': 'stats', limit: 100 }).set(who.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return Object.fromEntries(res.body.data.map((p: ApiObject) => [p.id, p.stats]));
  }

  /** Both views of a partner's stats must agree and equal the expected figures. */
  async function expectStats(partner: ApiObject, expected: PartnerStats, step: string) {
    expect(await partnerStats(t, org, partner.id), `retrieve, ${step}`).toEqual(expected);
    expect((await listedStats(partner.program_id))[partner.id], `list, ${step}`).toEqual(expected);
  }

  /** A new program of `org` whose only live flow is 10 % of every payment, approved at once (the default flow deleted). */
  async function programWithTenPercent(): Promise<ApiObject> {
    const program = await createProgram(t, org);
    expect(
      (
        await api()
          .delete(`/v1/flows/${(await defaultFlowOf(t, org, program)).id}`)
          .set(org.auth)
      ).status,
    ).toBe(200);
    await createFlow(t, org, {
      program_id: program.id,
      name: 'ten',
      reward: { type: 'percentage', value: 10 },
      approval: { type: 'immediate' },
    });
    return program;
  }

  async function ok(res: { status: number; body: any }, status = 200) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  }
  const refund = async (txn: ApiObject, amount?: number) =>
    (
      await ok(
        await api()
          .put(`/v1/transactions/${txn.id}/refund`)
          .set(org.auth)
          .send(amount === undefined ? {} : { amount }),
      )
    ).data[0];
  const manualCommission = async (body: Record<string, unknown>) =>
    (await ok(await api().post('/v1/commissions').set(org.auth).send(body), 201)).data[0];
  const setCommission = (id: string, body: Record<string, unknown>) =>
    api()
      .put(`/v1/commissions/${id}`)
      .set(org.auth)
      .send(body)
      .then((r) => ok(r));

  describe('a scripted history, figure by figure', () => {
    it('counts clicks, non-lead customers, net revenue and live commission', async () => {
      const program = await programWithTenPercent();
      const p = await createPartner(t, org, { program_id: program.id });
      const quiet = await createPartner(t, org, { program_id: program.id });
      await expectStats(p, ZERO, 'a new partner');
      const withoutInclude = await api().get(`/v1/partners/${p.id}`).set(org.auth);
      expect(withoutInclude.body.data).not.toHaveProperty('stats');

      // Clicks, through both methods of POST /v1/clicks.
      await clickOf(t, org, p);
      await clickOf(t, org, p);
      await createClick(t, org, { partner_id: p.id });
      await expectStats(p, stats(3, 0, 0, 0), 'three clicks');

      // Customers: leads do not count; any other status does; a deleted customer does not.
      const a = await createCustomer(t, org, p);
      const b = await createCustomer(t, org, p, { status: 'active' });
      const c = await createCustomer(t, org, p);
      const d = await createCustomer(t, org, p, { status: 'trialing' });
      const e = await createCustomer(t, org, p, { status: 'active' });
      const g = await createCustomer(t, org, p);
      expect([a.status, c.status, g.status]).toEqual(['lead', 'lead', 'lead']);
      await expectStats(p, stats(3, 3, 0, 0), 'b, d and e are not leads');
      await ok(await api().delete(`/v1/customers/${e.id}`).set(org.auth));
      await expectStats(p, stats(3, 2, 0, 0), 'e deleted');
      await ok(await api().put(`/v1/customers/${a.id}`).set(org.auth).send({ status: 'active' }));
      await expectStats(p, stats(3, 3, 0, 0), 'a activated');
      await ok(await api().put(`/v1/customers/${d.id}`).set(org.auth).send({ status: 'canceled' }));
      await expectStats(p, stats(3, 3, 0, 0), 'd canceled is still a customer');

      // Transactions and the 10 % flow (approved at once).
      const a1 = await createTransaction(t, org, a, { amount: 10_000, created_at: '2030-01-01T00:00:00.000Z' });
      await expectStats(p, stats(3, 3, 10_000, 1000), 'a pays 100.00');
      const b1 = await createTransaction(t, org, b, { amount: 5000, created_at: '2030-01-05T00:00:00.000Z' });
      const a2 = await createTransaction(t, org, a, { amount: 3000, created_at: '2030-02-01T00:00:00.000Z' });
      await expectStats(p, stats(3, 3, 18_000, 1800), 'b pays 50.00, a pays 30.00');
      // A lead who pays becomes active and counts.
      const g1 = await createTransaction(t, org, g, { amount: 2000, created_at: '2030-03-01T00:00:00.000Z' });
      await expectStats(p, stats(3, 4, 20_000, 2000), 'lead g pays 20.00');

      // Refunds: partial (an entry of −250), full of an unpaid commission (it becomes refunded).
      expect(await refund(a1, 2500)).toMatchObject({ status: 'partially_refunded', refunded_amount: 2500 });
      await expectStats(p, stats(3, 4, 17_500, 1750), 'a1 refunded 25.00');
      expect(await refund(b1)).toMatchObject({ status: 'refunded', refunded_amount: 5000 });
      await expectStats(p, stats(3, 4, 12_500, 1250), 'b1 fully refunded');
      expect(await refund(a1)).toMatchObject({ status: 'refunded', refunded_amount: 10_000 });
      await expectStats(p, stats(3, 4, 5000, 500), 'the rest of a1 refunded');

      // A deleted transaction is out; its approved commission is rejected.
      await ok(await api().delete(`/v1/transactions/${a2.id}`).set(org.auth));
      await expectStats(p, stats(3, 4, 2000, 200), 'a2 deleted');

      // Manual commissions: rejected and refunded ones do not count; a deleted one neither.
      const rejected = await manualCommission({ customer_id: b.id, amount: 111, status: 'rejected' });
      await manualCommission({ customer_id: b.id, amount: 222, status: 'refunded' });
      await expectStats(p, stats(3, 4, 2000, 200), 'rejected and refunded manual commissions');
      await manualCommission({ customer_id: b.id, amount: 333, status: 'paid' });
      await manualCommission({ program_id: program.id, partner_id: p.id, amount: 444 });
      await expectStats(p, stats(3, 4, 2000, 977), 'a paid manual commission and a pending one without customer');
      const doomed = await manualCommission({ customer_id: g.id, amount: 555, status: 'approved' });
      await expectStats(p, stats(3, 4, 2000, 1532), 'an approved manual commission');
      await ok(await api().delete(`/v1/commissions/${doomed.id}`).set(org.auth));
      await expectStats(p, stats(3, 4, 2000, 977), 'that commission deleted');
      await setCommission(rejected.id, { status: 'approved' });
      await expectStats(p, stats(3, 4, 2000, 1088), 'the rejected commission approved');
      await setCommission(rejected.id, { status: 'rejected' });
      await setCommission(rejected.id, { amount: 999 });
      await expectStats(p, stats(3, 4, 2000, 977), 'rejected again, whatever its amount');

      // A paid commission refunded in part: an approved refund entry nets it out.
      const [gReward] = await commissionsOf(t, org, g1);
      expect(gReward).toMatchObject({ amount: 200, status: 'approved' });
      await setCommission(gReward.id, { status: 'paid' });
      await expectStats(p, stats(3, 4, 2000, 977), 'g1 commission paid');
      await refund(g1, 500);
      await expectStats(p, stats(3, 4, 1500, 927), 'g1 refunded 5.00 after payout');
      expect((await commissionsOf(t, org, g1)).map((x) => [x.amount, x.status]).sort((l, r) => r[0] - l[0])).toEqual([
        [200, 'paid'],
        [-50, 'approved'],
      ]);

      // The quiet partner of the same program saw none of it.
      await expectStats(quiet, ZERO, 'the other partner');

      // Customer stats.
      expect(await customerStats(t, org, a.id)).toEqual({
        total_revenue: 0,
        total_commission: 0,
        total_orders: 1,
        last_order_at: '2030-01-01T00:00:00.000Z',
      });
      expect(await customerStats(t, org, b.id)).toEqual({
        total_revenue: 0,
        total_commission: 333,
        total_orders: 1,
        last_order_at: '2030-01-05T00:00:00.000Z',
      });
      expect(await customerStats(t, org, g.id)).toEqual({
        total_revenue: 1500,
        total_commission: 150,
        total_orders: 1,
        last_order_at: '2030-03-01T00:00:00.000Z',
      });
      expect(await customerStats(t, org, c.id)).toEqual({ total_revenue: 0, total_commission: 0, total_orders: 0, last_order_at: null });
      expect(await customerStats(t, org, d.id)).toEqual({ total_revenue: 0, total_commission: 0, total_orders: 0, last_order_at: null });
    });

    it('customer stats: orders, revenue net of refunds, commission, last_order_at', async () => {
      const program = await programWithTenPercent();
      const p = await createPartner(t, org, { program_id: program.id });
      const customer = await createCustomer(t, org, p, { status: 'active' });
      const plain = await api().get(`/v1/customers/${customer.id}`).set(org.auth);
      expect(plain.body.data).not.toHaveProperty('stats');
      expect(await customerStats(t, org, customer.id)).toEqual({
        total_revenue: 0,
        total_commission: 0,
        total_orders: 0,
        last_order_at: null,
      });

      const t1 = await createTransaction(t, org, customer, { amount: 1234, created_at: '2029-05-01T12:00:00.123Z' });
      const t2 = await createTransaction(t, org, customer, { amount: 4321, created_at: '2029-06-01T12:00:00.456Z' });
      // An older payment recorded later does not move last_order_at back.
      await createTransaction(t, org, customer, { amount: 1000, created_at: '2029-01-01T00:00:00.000Z' });
      // 10 % of 12.34 = 1.234 → 123; of 43.21 → 432; of 10.00 → 100.
      expect(await customerStats(t, org, customer.id)).toEqual({
        total_revenue: 6555,
        total_commission: 655,
        total_orders: 3,
        last_order_at: '2029-06-01T12:00:00.456Z',
      });

      await refund(t1);
      expect(await customerStats(t, org, customer.id)).toEqual({
        total_revenue: 5321,
        total_commission: 532,
        total_orders: 3,
        last_order_at: '2029-06-01T12:00:00.456Z',
      });
      await ok(await api().delete(`/v1/transactions/${t2.id}`).set(org.auth));
      expect(await customerStats(t, org, customer.id)).toEqual({
        total_revenue: 1000,
        total_commission: 100,
        total_orders: 2,
        last_order_at: '2029-05-01T12:00:00.123Z',
      });
      const manual = await manualCommission({ customer_id: customer.id, amount: 5000, status: 'approved' });
      expect((await customerStats(t, org, customer.id)).total_commission).toBe(5100);
      await ok(await api().delete(`/v1/commissions/${manual.id}`).set(org.auth));
      expect((await customerStats(t, org, customer.id)).total_commission).toBe(100);
      expect(await partnerStats(t, org, p.id)).toEqual(stats(0, 1, 1000, 100));
    });
  });

  describe('isolation', () => {
    it('stats do not leak across partners, programs or organizations', async () => {
      const x = await programWithTenPercent();
      const y = await programWithTenPercent();
      const px = await createPartner(t, org, { program_id: x.id });
      const px2 = await createPartner(t, org, { program_id: x.id });
      const py = await createPartner(t, org, { program_id: y.id });
      const theirs = await createPartner(t, otherOrg, { program_id: otherOrg.program_id });

      await createClick(t, org, { partner_id: px.id });
      const cx = await createCustomer(t, org, px, { status: 'active' });
      await createTransaction(t, org, cx, { amount: 7000 });
      await createClick(t, org, { partner_id: py.id });
      await createClick(t, org, { partner_id: py.id });
      const cy = await createCustomer(t, org, py, { status: 'active' });
      await createTransaction(t, org, cy, { amount: 300 });
      // The other organization's partner under its default flow (20 %, pending).
      await createClick(t, otherOrg, { partner_id: theirs.id });
      const ct = await createCustomer(t, otherOrg, theirs, { status: 'active' });
      await createTransaction(t, otherOrg, ct, { amount: 50_000 });

      expect(await listedStats(x.id)).toEqual({ [px.id]: stats(1, 1, 7000, 700), [px2.id]: ZERO });
      expect(await listedStats(y.id)).toEqual({ [py.id]: stats(2, 1, 300, 30) });
      expect(await partnerStats(t, otherOrg, theirs.id)).toEqual(stats(1, 1, 50_000, 10_000));
      expect((await listedStats(otherOrg.program_id, otherOrg))[theirs.id]).toEqual(stats(1, 1, 50_000, 10_000));
      // Another organization's partner or program → 404, not its stats.
      const foreign = await api().get(`/v1/partners/${theirs.id}`).query({ 'include[]': 'stats' }).set(org.auth);
      expect(foreign.status).toBe(404);
      expect(JSON.stringify(foreign.body)).not.toContain('total_');
      expect((await api().get('/v1/partners').query({ program_id: otherOrg.program_id, 'include[]': 'stats' }).set(org.auth)).status).toBe(
        404,
      );
    });

    it('an unknown include value → 400', async () => {
      const res = await api().get('/v1/partners').query({ program_id: org.program_id, 'include[]': 'secrets' }).set(org.auth);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('include');
    });
  });

  describe('consistency', () => {
    /** The figures recomputed from the base tables, as the brief defines them. */
    async function recount(partnerIds: string[]): Promise<Record<string, PartnerStats>> {
      const { rows } = await sql<{ id: string } & PartnerStats>`
        select p.id,
          (select count(*) from clicks k where k.partner_id = p.id)::int as total_clicks,
          (select count(*) from customers c where c.partner_id = p.id and c.deleted_at is null and c.status <> 'lead')::int as total_customers,
          (select coalesce(sum(x.amount - x.refunded_amount), 0) from transactions x where x.partner_id = p.id and x.deleted_at is null)::int as total_revenue,
          (select coalesce(sum(m.amount), 0) from commissions m
            where m.partner_id = p.id and m.deleted_at is null and m.status not in ('rejected', 'refunded'))::int as total_commission
        from partners p where p.id in (${sql.join(partnerIds)})`.execute(t.storage.db);
      return Object.fromEntries(rows.map(({ id, ...s }) => [id, s]));
    }

    async function recountCustomer(customerId: string) {
      const { rows } = await sql<{
        total_revenue: number;
        total_commission: number;
        total_orders: number;
        last_order_at: Date | string | null;
      }>`
        select
          (select coalesce(sum(amount - refunded_amount), 0) from transactions where customer_id = ${customerId} and deleted_at is null)::int as total_revenue,
          (select coalesce(sum(amount), 0) from commissions
            where customer_id = ${customerId} and deleted_at is null and status not in ('rejected', 'refunded'))::int as total_commission,
          (select count(*) from transactions where customer_id = ${customerId} and deleted_at is null)::int as total_orders,
          (select max(created_at) from transactions where customer_id = ${customerId} and deleted_at is null) as last_order_at`.execute(
        t.storage.db,
      );
      const r = rows[0];
      return { ...r, last_order_at: r.last_order_at === null ? null : new Date(r.last_order_at).toISOString() };
    }

    it("a partner_id change moves the row's contribution from the old partner to the new one", async () => {
      const program = await programWithTenPercent();
      const [from, to] = await Promise.all([0, 1].map(() => createPartner(t, org, { program_id: program.id })));
      const customer = await createCustomer(t, org, from, { status: 'active' });
      const txn = await createTransaction(t, org, customer, { amount: 10_000 });
      const [commission] = await commissionsOf(t, org, txn);
      await expectStats(from, stats(0, 1, 10_000, 1000), 'before');
      await expectStats(to, ZERO, 'before');

      // No API route moves a record to another partner; the counters must follow one anyway.
      const db = t.storage.db;
      await db.updateTable('customers').set({ partner_id: to.id }).where('id', '=', customer.id).execute();
      await db.updateTable('transactions').set({ partner_id: to.id }).where('id', '=', txn.id).execute();
      await db.updateTable('commissions').set({ partner_id: to.id }).where('id', '=', commission.id).execute();
      await expectStats(from, ZERO, 'moved');
      await expectStats(to, stats(0, 1, 10_000, 1000), 'moved');

      // Moved back while its own figure changes: the old partner loses the old figure, the new one gains the new one.
      await db.updateTable('commissions').set({ partner_id: from.id, amount: 700 }).where('id', '=', commission.id).execute();
      await db.updateTable('transactions').set({ partner_id: from.id, refunded_amount: 4000 }).where('id', '=', txn.id).execute();
      await db.updateTable('customers').set({ partner_id: from.id, status: 'lead' }).where('id', '=', customer.id).execute();
      await expectStats(from, stats(0, 0, 6000, 700), 'moved back');
      await expectStats(to, ZERO, 'moved back');
      expect(await recount([from.id, to.id])).toEqual({ [from.id]: stats(0, 0, 6000, 700), [to.id]: ZERO });
    });

    it('after a mixed random workload the counters equal a recount from the base tables', async () => {
      const rnd = prng(20_240_605);
      // Two programs: one with three flows of all approval kinds, one on its default flow.
      const y = await createProgram(t, org);
      for (const body of [
        { reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } },
        {
          reward: { type: 'fixed', value: 300 },
          approval: { type: 'manual' },
          conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }],
        },
        {
          reward: { type: 'percentage', value: 7.5, product_rates: [{ product_id: 'pro', type: 'fixed', value: 999 }] },
          approval: { type: 'scheduled', delay_days: 3 },
        },
      ]) {
        await ok(
          await api()
            .post('/v1/flows')
            .set(org.auth)
            .send({ program_id: y.id, name: `f ${uniqueSuffix()}`, ...body }),
          201,
        );
      }
      const z = await createProgram(t, org);
      const partners = [
        ...(await Promise.all([0, 1, 2].map(() => createPartner(t, org, { program_id: y.id })))),
        ...(await Promise.all([0, 1].map(() => createPartner(t, org, { program_id: z.id })))),
      ];

      interface Cust {
        id: string;
        partner: ApiObject;
        live: boolean;
      }
      interface Txn {
        id: string;
        left: number;
        live: boolean;
      }
      const customers: Cust[] = [];
      const txns: Txn[] = [];
      // Commission ids with their transaction: an update of a commission and a refund of its
      // transaction are not sent side by side (see the deadlock test below).
      const liveCommissions = () =>
        t.storage.db
          .selectFrom('commissions')
          .select(['id', 'transaction_id', 'type'])
          .where('program_id', 'in', [y.id, z.id])
          .where('deleted_at', 'is', null)
          .orderBy('id')
          .execute();

      type Op = (busy: Set<string>) => Promise<void> | null;
      const claim = (busy: Set<string>, ...ids: string[]) => {
        if (ids.some((id) => busy.has(id))) return false;
        for (const id of ids) busy.add(id);
        return true;
      };
      const expectOk = (res: { status: number; body: unknown }) => {
        expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        return res;
      };
      let commissionPool: { id: string; transaction_id: string | null; type: string }[] = [];
      const ops: [number, Op][] = [
        [
          6,
          () =>
            api()
              .post('/v1/clicks')
              .set(org.auth)
              .send({ partner_id: rnd.pick(partners).id })
              .then(expectOk)
              .then(() => undefined),
        ],
        [
          4,
          () => {
            const partner = rnd.pick(partners);
            const status = rnd.pick(['lead', 'lead', 'trialing', 'active', 'canceled']);
            return createCustomer(t, org, partner, { status }).then((c) => void customers.push({ id: c.id, partner, live: true }));
          },
        ],
        [
          3,
          (busy) => {
            const c = rnd.pick(customers.filter((x) => x.live));
            if (!c || !claim(busy, c.id)) return null;
            return api()
              .put(`/v1/customers/${c.id}`)
              .set(org.auth)
              .send({ status: rnd.pick(['lead', 'trialing', 'active', 'canceled']) })
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          1,
          (busy) => {
            const c = rnd.pick(customers.filter((x) => x.live));
            if (!c || !claim(busy, c.id)) return null;
            c.live = false;
            return api()
              .delete(`/v1/customers/${c.id}`)
              .set(org.auth)
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          8,
          (busy) => {
            const c = rnd.pick(customers.filter((x) => x.live));
            if (!c || !claim(busy, c.id)) return null;
            const amount = rnd.pick([0, 1, 99, 1000, rnd.int(1, 20_000)]);
            const extra =
              rnd.next() < 0.3 ? { product_id: 'pro' } : rnd.next() < 0.3 ? { billing_type: 'subscription', interval: 'month' } : {};
            return createTransaction(t, org, { id: c.id }, { amount, ...extra }).then(
              (x) => void txns.push({ id: x.id, left: amount, live: true }),
            );
          },
        ],
        [
          4,
          (busy) => {
            const x = rnd.pick(txns.filter((v) => v.live && v.left > 0));
            if (!x || !claim(busy, x.id)) return null;
            const amount = rnd.next() < 0.4 ? undefined : rnd.int(1, x.left);
            x.left -= amount ?? x.left;
            return api()
              .put(`/v1/transactions/${x.id}/refund`)
              .set(org.auth)
              .send(amount === undefined ? {} : { amount })
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          1,
          (busy) => {
            const x = rnd.pick(txns.filter((v) => v.live));
            if (!x || !claim(busy, x.id)) return null;
            x.live = false;
            return api()
              .delete(`/v1/transactions/${x.id}`)
              .set(org.auth)
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          2,
          (busy) => {
            const partner = rnd.pick(partners);
            const status = rnd.pick(['pending', 'approved', 'paid', 'rejected', 'refunded']);
            const owned = customers.filter((c) => c.partner.id === partner.id && c.live);
            const owner = owned.length && rnd.next() < 0.5 ? rnd.pick(owned) : undefined;
            if (owner && !claim(busy, owner.id)) return null;
            const body = owner ? { customer_id: owner.id } : { program_id: partner.program_id, partner_id: partner.id };
            return api()
              .post('/v1/commissions')
              .set(org.auth)
              .send({ ...body, amount: rnd.int(0, 5000), status })
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          4,
          (busy) => {
            const picked = rnd.pick(commissionPool);
            if (!picked || !claim(busy, picked.id, ...(picked.transaction_id ? [picked.transaction_id] : []))) return null;
            const id = picked.id;
            // A refund entry's amount is not editable.
            const body =
              rnd.next() < 0.8 || picked.type === 'refund'
                ? { status: rnd.pick(['pending', 'approved', 'paid', 'rejected', 'refunded']) }
                : { amount: rnd.int(0, 3000) };
            return api()
              .put(`/v1/commissions/${id}`)
              .set(org.auth)
              .send(body)
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          1,
          (busy) => {
            const picked = rnd.pick(commissionPool);
            if (!picked || !claim(busy, picked.id, ...(picked.transaction_id ? [picked.transaction_id] : []))) return null;
            const id = picked.id;
            commissionPool = commissionPool.filter((c) => c.id !== id);
            return api()
              .delete(`/v1/commissions/${id}`)
              .set(org.auth)
              .then(expectOk)
              .then(() => undefined);
          },
        ],
        [
          1,
          (busy) => {
            const partner = rnd.pick(partners);
            if (!claim(busy, partner.id)) return null;
            return api()
              .put(`/v1/partners/${partner.id}`)
              .set(org.auth)
              .send({ status: rnd.pick(['active', 'active', 'suspended']) })
              .then(expectOk)
              .then(() => undefined);
          },
        ],
      ];
      const totalWeight = ops.reduce((s, [w]) => s + w, 0);
      const pickOp = () => {
        let r = rnd.next() * totalWeight;
        for (const [w, op] of ops) {
          r -= w;
          if (r < 0) return op;
        }
        return ops[0][1];
      };

      // Batches of requests run side by side (several connections, so several shards on PostgreSQL);
      // within a batch no two requests touch the same record.
      for (let batch = 0; batch < 40; batch++) {
        commissionPool = await liveCommissions();
        const busy = new Set<string>();
        const running: Promise<void>[] = [];
        for (let i = 0; i < 6; i++) {
          const work = pickOp()(busy);
          if (work) running.push(work);
        }
        await Promise.all(running);
      }

      const ids = partners.map((p) => p.id);
      const expected = await recount(ids);
      // The workload really did something of every kind.
      const totals = Object.values(expected).reduce(
        (s, v) =>
          stats(
            s.total_clicks + v.total_clicks,
            s.total_customers + v.total_customers,
            s.total_revenue + v.total_revenue,
            s.total_commission + v.total_commission,
          ),
        ZERO,
      );
      expect(totals.total_clicks).toBeGreaterThan(5);
      expect(totals.total_customers).toBeGreaterThan(3);
      expect(totals.total_revenue).toBeGreaterThan(0);
      expect(totals.total_commission).not.toBe(0);
      const refunds = await t.storage.db
        .selectFrom('commissions')
        .select('id')
        .where('program_id', '=', y.id)
        .where('type', '=', 'refund')
        .execute();
      expect(refunds.length).toBeGreaterThan(0);

      const listed = { ...(await listedStats(y.id)), ...(await listedStats(z.id)) };
      for (const p of partners) {
        expect(await partnerStats(t, org, p.id), `retrieve ${p.id}`).toEqual(expected[p.id]);
        expect(listed[p.id], `list ${p.id}`).toEqual(expected[p.id]);
      }
      // The engine's view (what partner.total_customers conditions see) agrees too.
      const engineView = await loadPartnerStats(t.storage.db, ids);
      expect(Object.fromEntries(engineView)).toEqual(expected);

      for (const c of customers.filter((x) => x.live)) {
        expect(await customerStats(t, org, c.id), `customer ${c.id}`).toEqual(await recountCustomer(c.id));
      }

      const shards = await sql<{ partner_id: string; n: number }>`
        select partner_id, count(*)::int as n from partner_stats where partner_id in (${sql.join(ids)}) group by partner_id`.execute(
        t.storage.db,
      );
      for (const { n } of shards.rows) expect(n).toBeLessThanOrEqual(16);
    });
  });

  describe('performance shape', () => {
    /** Records the query nodes a Kysely instance runs, to compile them again for EXPLAIN. */
    function recorder() {
      const seen: { node: RootOperationNode; queryId: QueryId }[] = [];
      const plugin: KyselyPlugin = {
        transformQuery: (args) => {
          seen.push({ node: args.node, queryId: args.queryId });
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      return { seen, db: t.storage.db.withPlugin(plugin) };
    }

    interface PlanNode {
      'Node Type': string;
      'Relation Name'?: string;
      'Plan Rows': number;
      'Actual Rows'?: number;
      'Actual Loops'?: number;
      Plans?: PlanNode[];
    }
    const walk = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(walk)];

    it('reads a few counter rows per partner, whatever the number of clicks', async () => {
      const program = await createProgram(t, org);
      const partner = await createPartner(t, org, { program_id: program.id });
      const other = await createPartner(t, org, { program_id: program.id });
      await clickOf(t, org, partner);
      await createClick(t, org, { partner_id: partner.id });
      await createClick(t, org, { partner_id: other.id });

      const N = 20_000;
      const prefix = `clk_perf${uniqueSuffix()}`;
      await sql`
        insert into clicks (id, organization_id, program_id, partner_id, created_at, updated_at)
        select ${prefix} || lpad(g::text, 8, '0'), ${org.organization_id}, ${program.id}, ${partner.id}, now(), now()
          from generate_series(1, ${N}) as g`.execute(t.storage.db);
      const counted = await sql<{ n: number }>`select count(*)::int as n from clicks where partner_id = ${partner.id}`.execute(
        t.storage.db,
      );
      expect(counted.rows[0].n).toBe(N + 2);
      if (STORAGE === 'postgres') await sql`analyze clicks`.execute(t.storage.db);

      expect((await partnerStats(t, org, partner.id)).total_clicks).toBe(N + 2);
      expect((await listedStats(program.id))[partner.id].total_clicks).toBe(N + 2);
      expect((await partnerStats(t, org, other.id)).total_clicks).toBe(1);

      // The exact query loadPartnerStats runs, captured and explained.
      for (const ids of [[partner.id], [partner.id, other.id]]) {
        const { seen, db } = recorder();
        const loaded = await loadPartnerStats(db, ids);
        expect(loaded.get(partner.id)?.total_clicks).toBe(N + 2);
        expect(seen).toHaveLength(1);
        const compiled = t.storage.db.getExecutor().compileQuery(seen[0].node, seen[0].queryId);
        expect(compiled.sql).toMatch(/partner_stats/);
        const explained = await t.storage.db.executeQuery<Record<string, unknown>>(
          CompiledQuery.raw(`explain (analyze, format json) ${compiled.sql}`, [...compiled.parameters]),
        );
        const raw = Object.values(explained.rows[0])[0];
        const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
        const nodes = walk(plan[0].Plan);
        const relations = [...new Set(nodes.flatMap((n) => (n['Relation Name'] ? [n['Relation Name']] : [])))];
        expect(relations).toEqual(['partner_stats']);
        const text = JSON.stringify(plan);
        for (const table of ['clicks', 'customers', 'transactions', 'commissions']) expect(text).not.toContain(`"${table}"`);

        const scans = nodes.filter((n) => n['Relation Name'] === 'partner_stats');
        expect(scans.length).toBeGreaterThan(0);
        for (const scan of scans) {
          expect(scan['Actual Rows']! * (scan['Actual Loops'] ?? 1)).toBeLessThanOrEqual(16 * ids.length);
          expect(scan['Plan Rows']).toBeLessThanOrEqual(16 * ids.length);
        }
      }
    });
  });
  describe('concurrency of the sharded counters (PostgreSQL)', () => {
    /** Single-connection databases, opened until two of them share a shard (backend pids equal modulo 16). */
    async function twinShardConnections(opened: { db: Db; pid: number }[]): Promise<[{ db: Db; pid: number }, { db: Db; pid: number }]> {
      for (let i = 0; i < 40; i++) {
        const db = new Kysely<Database>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: t.storage.databaseUrl, max: 1, idleTimeoutMillis: 0 }) }),
        });
        const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0].pid;
        const twin = opened.find((o) => o.pid % 16 === pid % 16);
        opened.push({ db, pid });
        if (twin) return [twin, { db, pid }];
      }
      throw new Error('no two connections sharing a shard');
    }

    /**
     * One statement changing the commissions of many partners: on two connections writing the
     * same shard, one going through the partners in one order and the other in the reverse order,
     * the counters must still be locked in one order (partner_id), or the two deadlock.
     */
    it.skipIf(STORAGE !== 'postgres')('two multi-partner commission updates in opposite orders do not deadlock', async () => {
      const program = await programWithTenPercent();
      const partners: ApiObject[] = [];
      for (let i = 0; i < 6; i++)
        partners.push(...(await Promise.all(Array.from({ length: 25 }, () => createPartner(t, org, { program_id: program.id })))));
      partners.sort((a, b) => (a.id < b.id ? -1 : 1));
      const now = new Date();
      const base = {
        organization_id: org.organization_id,
        program_id: program.id,
        type: 'reward',
        approval_type: 'manual',
        status: 'approved',
        amount: 100,
        created_at: now,
        updated_at: now,
      };
      // Ids (and insertion order) make the first set run through the partners upwards, the second downwards.
      const commission = (prefix: string) => (p: ApiObject, i: number) => ({
        ...base,
        id: `comm_${prefix}${String(i).padStart(4, '0')}${uniqueSuffix()}`,
        partner_id: p.id,
      });
      const up = partners.map(commission('up'));
      const down = [...partners].reverse().map(commission('dn'));
      await t.storage.db.insertInto('commissions').values(up).execute();
      await t.storage.db.insertInto('commissions').values(down).execute();

      const opened: { db: Db; pid: number }[] = [];
      try {
        const [a, b] = await twinShardConnections(opened);
        const flip = (db: Db, rows: { id: string }[], status: string) =>
          db
            .updateTable('commissions')
            .set({ status })
            .where(
              'id',
              'in',
              rows.map((r) => r.id),
            )
            .execute();
        const errors: string[] = [];
        for (const status of ['rejected', 'approved', 'rejected', 'approved']) {
          const outcomes = await Promise.allSettled([flip(a.db, up, status), flip(b.db, down, status)]);
          errors.push(...outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error)?.message ?? o.reason)] : [])));
        }
        expect(errors).toEqual([]);
      } finally {
        await Promise.all(opened.map((o) => o.db.destroy()));
      }
      for (const p of partners.slice(0, 3)) expect((await partnerStats(t, org, p.id)).total_commission).toBe(200);
    });

    /**
     * Two connections whose backend pids are equal modulo 16 write the same partner_stats shard.
     * A refund bumps the shard (UPDATE transactions) and only then locks the transaction's
     * commissions; a commission update locks its row and then bumps the shard. Paused at the
     * right moment, the two wait on each other. The API should not answer one of them with a 500.
     */
    it.skipIf(STORAGE !== 'postgres')(
      'a refund and a commission update of one partner do not deadlock when their connections share a shard',
      async () => {
        const program = await programWithTenPercent();
        const partner = await createPartner(t, org, { program_id: program.id });
        const customer = await createCustomer(t, org, partner, { status: 'active' });
        const txn = await createTransaction(t, org, customer, { amount: 100_000 });
        const [reward] = await commissionsOf(t, org, txn);
        expect(reward).toMatchObject({ amount: 10_000, status: 'approved' });

        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let reached!: () => void;
        const paused = new Promise<void>((r) => (reached = r));
        let gated = false;
        const opened: { db: Db; pid: number }[] = [];
        try {
          const [refunder, updater] = await twinShardConnections(opened);
          const seen = new WeakSet<object>();
          const refunderDb = refunder.db.withPlugin({
            transformQuery: (args) => {
              if (!gated && args.node.kind === 'UpdateQueryNode' && JSON.stringify(args.node.table).includes('"transactions"'))
                seen.add(args.queryId);
              return args.node;
            },
            transformResult: async (args) => {
              if (seen.has(args.queryId)) {
                gated = true;
                reached();
                await gate;
              }
              return args.result;
            },
          });

          const refunding = refundTransaction(refunderDb, org.organization_id, txn.id, 1000);
          await paused; // the transaction row is updated and its shard bumped, uncommitted
          const updating = updateCommission(updater.db, org.organization_id, reward.id, { status: 'rejected' });
          // Wait until the update is blocked on a lock, then let the refund go on.
          await vi.waitFor(async () => {
            const r = await sql<{ w: string | null }>`select wait_event_type as w from pg_stat_activity where pid = ${updater.pid}`.execute(
              t.storage.db,
            );
            expect(r.rows[0]?.w).toBe('Lock');
          }, EVENTUALLY);
          release();
          const outcomes = await Promise.allSettled([refunding, updating]);
          const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error)?.message ?? o.reason)] : []));
          expect(errors).toEqual([]);
        } finally {
          release?.();
          await Promise.all(opened.map((o) => o.db.destroy()));
        }
      },
    );
  });
});
