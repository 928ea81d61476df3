import pino from 'pino';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type Db, openDatabase } from '../../src/db/database.js';
import { approveDueCommissions, startApprovalJob } from '../../src/resources/commissions/approval-job.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createGroup,
  createPartner,
  createProgram,
  createTransaction,
  fullCommission,
  quietProgram,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp, warmPool } from '../support/harness.js';
import { DAY_MS } from '../support/time.js';

/**
 * How flow-made commissions are approved: the approval type of the flow (immediate, manual,
 * scheduled with delay_days), the approval job (`approveDueCommissions`, also run concurrently
 * from two app instances, and `startApprovalJob`'s timer), and signup flows.
 */

const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS);

describe('commission approval', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  let db: Db;
  beforeAll(() => {
    db = t.storage.db;
  });

  const flowIn = (p: ApiObject, overrides: Record<string, unknown>) => createFlow(t, org, { program_id: p.id, ...overrides });

  async function customerIn(p: ApiObject, partnerOverrides: Record<string, unknown> = {}) {
    const partner = await createPartner(t, org, { program_id: p.id, ...partnerOverrides });
    const customer = await createCustomer(t, org, partner);
    return { partner, customer };
  }

  /** The transaction's commissions in the full field set, keyed by flow id. */
  async function byFlow(transaction: ApiObject): Promise<Record<string, ApiObject>> {
    const rows = await commissionsOf(t, org, transaction);
    const out: Record<string, ApiObject> = {};
    for (const row of rows) {
      const c = await fullCommission(t, org, row.id);
      expect(out[c.flow_id]).toBeUndefined();
      out[c.flow_id] = c;
    }
    return out;
  }

  async function statusOf(id: string): Promise<string> {
    const row = await db.selectFrom('commissions').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    return row.status;
  }

  async function countIn(p: ApiObject, status: string): Promise<number> {
    const res = await t.request.get('/v1/commissions').set(org.auth).query({ program_id: p.id, status, limit: 1 });
    expect(res.status).toBe(200);
    return res.body.total_count;
  }

  /** Approves everything scheduled, so that a test counts only what it makes itself. */
  const drain = () => approveDueCommissions(db, new Date(Date.now() + 100 * 365 * DAY_MS));

  it('immediate → approved, manual → pending without a date, scheduled → pending until created_at + delay_days', async () => {
    const p = await quietProgram(t, org);
    const immediate = await flowIn(p, { reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } });
    const manual = await flowIn(p, { reward: { type: 'fixed', value: 500 }, approval: { type: 'manual' } });
    const week = await flowIn(p, { reward: { type: 'percentage', value: 20 }, approval: { type: 'scheduled', delay_days: 7 } });
    const sameDay = await flowIn(p, { reward: { type: 'fixed', value: 300 }, approval: { type: 'scheduled', delay_days: 0 } });
    const { partner, customer } = await customerIn(p);
    const at = daysAgo(2);
    const txn = await createTransaction(t, org, customer, { amount: 10_000, created_at: at.toISOString() });
    expect(txn.created_at).toBe(at.toISOString());

    const c = await byFlow(txn);
    expect(Object.keys(c).sort()).toEqual([immediate.id, manual.id, week.id, sameDay.id].sort());
    const common = {
      revenue: '10000',
      customer_id: customer.id,
      transaction_id: txn.id,
      charge_id: txn.charge_id,
      charge_status: 'paid',
      type: 'reward',
      currency: 'USD',
      partner_id: partner.id,
      program_id: p.id,
      organization_id: org.organization_id,
      payout_id: null,
      created_at: at.toISOString(),
    };
    expect(c[immediate.id]).toMatchObject({
      ...common,
      amount: '1000',
      status: 'approved',
      approval_type: 'immediate',
      scheduled_approval_date: null,
    });
    expect(c[manual.id]).toMatchObject({
      ...common,
      amount: '500',
      status: 'pending',
      approval_type: 'manual',
      scheduled_approval_date: null,
    });
    expect(c[week.id]).toMatchObject({
      ...common,
      amount: '2000',
      status: 'pending',
      approval_type: 'scheduled',
      scheduled_approval_date: new Date(at.getTime() + 7 * DAY_MS).toISOString(),
    });
    expect(c[sameDay.id]).toMatchObject({
      ...common,
      amount: '300',
      status: 'pending',
      approval_type: 'scheduled',
      scheduled_approval_date: at.toISOString(),
    });
  });

  it('the default flow schedules approval 30 days after the payment', async () => {
    const p = await createProgram(t, org);
    const { customer } = await customerIn(p);
    const at = new Date('2025-05-06T07:08:09.123Z');
    const txn = await createTransaction(t, org, customer, { amount: 4999, created_at: at.toISOString() });
    const rows = await commissionsOf(t, org, txn);
    expect(rows).toHaveLength(1);
    const c = await fullCommission(t, org, rows[0].id);
    expect(c).toMatchObject({
      amount: '1000',
      status: 'pending',
      approval_type: 'scheduled',
      scheduled_approval_date: '2025-06-05T07:08:09.123Z',
    });
  });

  it('approveDueCommissions approves only the due scheduled ones and returns the count', async () => {
    await drain();
    const p = await createProgram(t, org); // default flow: 20 %, scheduled 30 days
    const manual = await flowIn(p, { reward: { type: 'fixed', value: 100 }, approval: { type: 'manual' } });
    const { customer } = await customerIn(p);
    const pay = (days: number, amount: number) => createTransaction(t, org, customer, { amount, created_at: daysAgo(days).toISOString() });

    const due = [await pay(40, 1000), await pay(40, 2000), await pay(31, 3000)];
    const notDue = await pay(10, 4000);
    const toDelete = await pay(40, 6000);
    const toReject = await pay(40, 7000);
    const txnToDelete = await pay(40, 8000);

    const flowsOf = async (txn: ApiObject) => {
      const map = await byFlow(txn);
      expect(Object.keys(map)).toHaveLength(2);
      const scheduled = Object.values(map).find((c) => c.flow_id !== manual.id)!;
      expect(scheduled).toMatchObject({ status: 'pending', approval_type: 'scheduled', amount: String(txn.amount / 5) });
      expect(scheduled.scheduled_approval_date).toBe(new Date(Date.parse(txn.created_at) + 30 * DAY_MS).toISOString());
      expect(map[manual.id]).toMatchObject({ status: 'pending', approval_type: 'manual', scheduled_approval_date: null });
      return { scheduled, manual: map[manual.id] };
    };
    const dueC = await Promise.all(due.map(flowsOf));
    const notDueC = await flowsOf(notDue);
    const deletedC = await flowsOf(toDelete);
    const rejectedC = await flowsOf(toReject);
    const txnDeletedC = await flowsOf(txnToDelete);

    expect((await t.request.delete(`/v1/commissions/${deletedC.scheduled.id}`).set(org.auth)).status).toBe(200);
    expect((await t.request.put(`/v1/commissions/${rejectedC.scheduled.id}`).set(org.auth).send({ status: 'rejected' })).status).toBe(200);
    expect((await t.request.delete(`/v1/transactions/${txnToDelete.id}`).set(org.auth)).status).toBe(200);
    expect(await statusOf(txnDeletedC.scheduled.id)).toBe('rejected');

    expect(await approveDueCommissions(db, new Date())).toBe(3);
    for (const c of dueC) {
      expect(await statusOf(c.scheduled.id)).toBe('approved');
      expect(await statusOf(c.manual.id)).toBe('pending');
    }
    expect(await statusOf(notDueC.scheduled.id)).toBe('pending');
    expect(await statusOf(notDueC.manual.id)).toBe('pending');
    expect(await statusOf(deletedC.scheduled.id)).toBe('pending'); // deleted: left as it was
    expect(await statusOf(rejectedC.scheduled.id)).toBe('rejected');
    expect(await statusOf(txnDeletedC.scheduled.id)).toBe('rejected');
    expect(await statusOf(txnDeletedC.manual.id)).toBe('rejected');
    const approved = await t.request.get(`/v1/commissions/${dueC[0].scheduled.id}`).set(org.auth);
    expect(approved.body.data.status).toBe('approved');

    // Nothing more is due now; the not-yet-due one becomes due exactly at its date.
    expect(await approveDueCommissions(db, new Date())).toBe(0);
    const date = new Date(notDueC.scheduled.scheduled_approval_date);
    expect(await approveDueCommissions(db, new Date(date.getTime() - 1))).toBe(0);
    expect(await statusOf(notDueC.scheduled.id)).toBe('pending');
    expect(await approveDueCommissions(db, date)).toBe(1);
    expect(await statusOf(notDueC.scheduled.id)).toBe('approved');

    // Far in the future: manual, deleted and rejected ones are still never approved.
    expect(await drain()).toBe(0);
    expect(await countIn(p, 'approved')).toBe(4);
    expect(await countIn(p, 'pending')).toBe(6); // the manual ones of the six live transactions (the deleted one is hidden)
    expect(await statusOf(deletedC.scheduled.id)).toBe('pending');
    for (const c of [...dueC, notDueC, deletedC, rejectedC]) expect(await statusOf(c.manual.id)).toBe('pending');
  });

  it('approves each due commission exactly once when run concurrently from two app instances', async () => {
    await drain();
    const p = await createProgram(t, org); // the default flow plus nine more scheduled flows: ten commissions a payment
    for (let d = 1; d <= 9; d++)
      await flowIn(p, { reward: { type: 'percentage', value: d }, approval: { type: 'scheduled', delay_days: d } });
    const { customer } = await customerIn(p);
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          createTransaction(t, org, customer, { amount: 10_000 + batch * 5 + i, created_at: daysAgo(40).toISOString() }),
        ),
      );
    }
    expect(await countIn(p, 'pending')).toBe(300);

    const second = await createTestApp({ storage: t.storage });
    // On PostgreSQL also a third, independent pool: another process's connections.
    const third = t.storage.databaseUrl ? openDatabase({ kind: 'postgres', url: t.storage.databaseUrl }) : null;
    try {
      await warmPool(t);
      await warmPool(second);
      const runners = [t.deps.db, second.deps.db, ...(third ? [third] : [])];
      const runs = Array.from({ length: 9 }, (_, i) => approveDueCommissions(runners[i % runners.length]));
      const counts = await Promise.all(runs);
      expect(
        counts.reduce((a, b) => a + b, 0),
        JSON.stringify(counts),
      ).toBe(300);
      for (const n of counts) expect(n).toBeGreaterThanOrEqual(0);
      expect(await countIn(p, 'approved')).toBe(300);
      expect(await countIn(p, 'pending')).toBe(0);
      // A second round finds nothing left.
      const again = await Promise.all([approveDueCommissions(t.deps.db), approveDueCommissions(second.deps.db)]);
      expect(again).toEqual([0, 0]);
    } finally {
      await second.close();
      await third?.destroy();
    }
  });

  it('approves more than one batch (500) of due commissions of several partners, runs side by side included', async () => {
    await drain();
    const p = await createProgram(t, org); // the default flow plus nine more: ten scheduled commissions a payment
    for (let d = 1; d <= 9; d++)
      await flowIn(p, { reward: { type: 'percentage', value: d }, approval: { type: 'scheduled', delay_days: d } });
    const partners = await Promise.all([0, 1, 2, 3].map(() => customerIn(p)));
    for (let round = 0; round < 29; round++) {
      await Promise.all(
        partners.map(({ customer }, i) =>
          createTransaction(t, org, customer, { amount: 10_000 + round * 4 + i, created_at: daysAgo(40).toISOString() }),
        ),
      );
    }
    expect(await countIn(p, 'pending')).toBe(1160);
    const totals = async () =>
      Promise.all(
        partners.map(
          async ({ partner }) => (await t.request.get(`/v1/partners/${partner.id}?include[]=stats`).set(org.auth)).body.data.stats,
        ),
      );
    const before = await totals();

    const second = await createTestApp({ storage: t.storage });
    try {
      await warmPool(t);
      await warmPool(second);
      const counts = await Promise.all([
        approveDueCommissions(t.deps.db),
        approveDueCommissions(second.deps.db),
        approveDueCommissions(t.deps.db),
      ]);
      expect(
        counts.reduce((a, b) => a + b, 0),
        JSON.stringify(counts),
      ).toBe(1160);
    } finally {
      await second.close();
    }
    expect(await countIn(p, 'approved')).toBe(1160);
    expect(await countIn(p, 'pending')).toBe(0);
    expect(await totals()).toEqual(before);
    expect(await approveDueCommissions(db)).toBe(0);
  });

  it('startApprovalJob approves at start and on its timer, and close() stops it', async () => {
    await drain();
    const p = await quietProgram(t, org);
    await flowIn(p, { reward: { type: 'fixed', value: 100 }, approval: { type: 'scheduled', delay_days: 1 } });
    const { customer } = await customerIn(p);
    const dueCommission = async () => {
      const txn = await createTransaction(t, org, customer, { amount: 1000, created_at: daysAgo(5).toISOString() });
      const rows = await commissionsOf(t, org, txn);
      expect(rows).toHaveLength(1);
      expect(rows[0].status).toBe('pending');
      return rows[0].id as string;
    };
    /** Polls the commission's status until it is `status`, failing after `timeout` ms. */
    const becomes = (id: string, status: string, timeout: number) =>
      expect.poll(() => statusOf(id), { timeout, interval: 20 }).toBe(status);

    const logger = pino({ level: 'silent' });

    // A run at start: with a one-minute timer, nothing but the start run can approve it.
    const first = await dueCommission();
    const slow = startApprovalJob(db, logger, 60);
    try {
      await becomes(first, 'approved', 10_000);
    } finally {
      await slow.close();
    }

    // The timer, on a fake clock (setInterval only: SQL and HTTP keep real time): after the start
    // run has finished, a new due commission is approved by a later tick, and by nothing else.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const job = startApprovalJob(db, logger, 1);
      expect(vi.getTimerCount()).toBe(1);
      try {
        expect(await job.runNow()).toBe(0); // joins (or follows) the start run: nothing is due
        const second = await dueCommission();
        expect(await statusOf(second)).toBe('pending');
        vi.advanceTimersByTime(1000);
        await becomes(second, 'approved', 5000);
      } finally {
        await job.close();
      }
      // close() stopped the timer: time passing approves nothing.
      expect(vi.getTimerCount()).toBe(0);
      const afterClose = await dueCommission();
      vi.advanceTimersByTime(10_000);
      expect(await statusOf(afterClose)).toBe('pending');
    } finally {
      vi.useRealTimers();
    }
    expect(await approveDueCommissions(db)).toBe(1);
  });

  it("a signup flow pays its fixed reward when a customer is created, without revenue or transaction, only in the flow's group", async () => {
    const p = await quietProgram(t, org);
    const vip = await createGroup(t, org, { program_id: p.id, name: 'VIP' });
    const vipFlow = await flowIn(p, {
      trigger: 'signup',
      group_id: vip.id,
      reward: { type: 'fixed', value: 700 },
      approval: { type: 'immediate' },
    });
    const allFlow = await flowIn(p, {
      trigger: 'signup',
      reward: { type: 'fixed', value: 250 },
      approval: { type: 'scheduled', delay_days: 3 },
    });
    const vipPartner = await createPartner(t, org, { program_id: p.id, group_id: vip.id });
    const plainPartner = await createPartner(t, org, { program_id: p.id });

    const res = await t.request
      .post('/v1/customers')
      .set(org.auth)
      .send({ email: `signup-${Date.now()}@example.com`, partner_id: vipPartner.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const vipCustomer = res.body.data[0];

    const list = async (customer: ApiObject) => {
      const r = await t.request
        .get('/v1/commissions')
        .set(org.auth)
        .query({ program_id: p.id, customer_id: customer.id, order: 'asc', limit: 100 });
      expect(r.status).toBe(200);
      return r.body.data as ApiObject[];
    };
    const vipRows = await list(vipCustomer);
    expect(vipRows).toHaveLength(2);
    for (const row of vipRows) {
      expect(row).toMatchObject({
        revenue: null,
        transaction_id: null,
        charge_id: null,
        customer_id: vipCustomer.id,
        created_at: vipCustomer.created_at,
      });
    }
    const vipFull: Record<string, ApiObject> = {};
    for (const row of vipRows) {
      const c = await fullCommission(t, org, row.id);
      vipFull[c.flow_id] = c;
    }
    const common = {
      revenue: null,
      transaction_id: null,
      charge_id: null,
      charge_status: null,
      customer_id: vipCustomer.id,
      partner_id: vipPartner.id,
      program_id: p.id,
      type: 'reward',
      currency: 'USD',
      created_at: vipCustomer.created_at,
    };
    expect(vipFull[vipFlow.id]).toMatchObject({
      ...common,
      amount: '700',
      status: 'approved',
      approval_type: 'immediate',
      scheduled_approval_date: null,
    });
    expect(vipFull[allFlow.id]).toMatchObject({
      ...common,
      amount: '250',
      status: 'pending',
      approval_type: 'scheduled',
      scheduled_approval_date: new Date(Date.parse(vipCustomer.created_at) + 3 * DAY_MS).toISOString(),
    });

    // A partner outside the group earns only from the flow for all groups.
    const plainCustomer = await createCustomer(t, org, plainPartner);
    const plainRows = await list(plainCustomer);
    expect(plainRows).toHaveLength(1);
    expect(plainRows[0]).toMatchObject({ amount: 250, revenue: null, transaction_id: null });
    expect((await fullCommission(t, org, plainRows[0].id)).flow_id).toBe(allFlow.id);

    // A later payment triggers no signup flow again (the program's payment flow is off).
    await createTransaction(t, org, vipCustomer, { amount: 5000 });
    expect(await list(vipCustomer)).toHaveLength(2);
  });
});
