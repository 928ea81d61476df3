import { describe, expect, it } from 'vitest';
import type { CustomerRow, NewCommission } from '../../src/db/schema.js';
import {
  approveDueBatch,
  deleteUnpaidRefundEntries,
  type Earner,
  findCommission,
  findEarner,
  insertCommissions,
  insertRefundEntries,
  loadCountedFacts,
  lockCommission,
  lockTransactionCommissions,
  moveVoidedRefundEntries,
  replaceChargeId,
  restoreRefundEntries,
  selectCommissionList,
  selectCommissions,
  setCommissionsChargeStatus,
  setCommissionsStatus,
  softDeleteCommission,
  updateCommissionRow,
  voidRefundEntries,
} from '../../src/resources/commissions/commissions.repository.js';
import type { EngineFlow } from '../../src/resources/commissions/engine.js';
import type { ConditionDef } from '../../src/resources/flows/flows.schema.js';
import { sqlOf } from '../support/sql-recorder.js';

const at = new Date('2026-01-01T00:00:00Z');

const commission: NewCommission = {
  id: 'com_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'prt_1',
  customer_id: 'cus_1',
  transaction_id: 'txn_1',
  flow_id: null,
  refund_of: null,
  type: 'reward',
  status: 'pending',
  amount: 980,
  revenue: 4900,
  currency: 'usd',
  charge_id: 'ch_1',
  charge_status: 'paid',
  source: null,
  approval_type: 'manual',
  scheduled_approval_date: null,
  payout_id: null,
  created_at: at,
  updated_at: at,
};

const customer: CustomerRow = {
  id: 'cus_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'prt_1',
  identifier: 'buyer@shop.io',
  email: 'buyer@shop.io',
  name: null,
  customer_id: null,
  subscription_id: null,
  click_id: null,
  promotion_code_id: null,
  status: 'lead',
  plan: null,
  lead_at: at,
  active_at: null,
  created_at: at,
  updated_at: at,
  deleted_at: null,
};

const earner: Earner = { customer, partner: { status: 'active', deleted: false, group_id: 'grp_1', country_code: null }, currency: 'usd' };

const flowReading = (...conditions: ConditionDef[]): EngineFlow => ({
  id: 'flw_1',
  group_id: null,
  trigger: 'payment',
  active: true,
  conditions,
  reward: { type: 'percentage', value: 20 },
  approval: { type: 'immediate' },
});
const firstPayment: ConditionDef = { subject: 'customer.transaction_count', op: 'eq', value: 1 };
const bigPartner: ConditionDef = { subject: 'partner.total_customers', op: 'gte', value: 100 };

/** The earner query's answer: a customer row with its partner and program columns. */
const earnerRow = () => [
  {
    ...customer,
    partner_status: 'active',
    partner_deleted_at: null,
    partner_group_id: 'grp_1',
    partner_country_code: null,
    currency_code: 'usd',
  },
];

describe('commissions repository SQL', () => {
  it('selectCommissions', async () => {
    expect(await sqlOf((db) => selectCommissions(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('selectCommissionList, program only', async () => {
    expect(await sqlOf((db) => selectCommissionList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectCommissionList, every filter', async () => {
    const filters = { programId: 'prg_1', partnerId: 'prt_1', customerId: 'cus_1', transactionId: 'txn_1', status: 'approved' };
    expect(await sqlOf((db) => selectCommissionList(db, 'org_1', filters).execute())).toMatchSnapshot();
  });

  it('findCommission', async () => {
    expect(await sqlOf((db) => findCommission(db, 'org_1', 'com_1'))).toMatchSnapshot();
  });

  it('lockCommission: the commission first, then its refund entries', async () => {
    expect(
      await sqlOf(
        (db) => lockCommission(db, 'org_1', 'com_1'),
        () => [{ id: 'com_1' }],
      ),
    ).toMatchSnapshot();
  });

  it('lockCommission, no such commission: one statement', async () => {
    expect(
      await sqlOf(
        (db) => lockCommission(db, 'org_1', 'com_1'),
        () => [],
      ),
    ).toMatchSnapshot();
  });

  it('lockTransactionCommissions', async () => {
    expect(await sqlOf((db) => lockTransactionCommissions(db, 'txn_1'))).toMatchSnapshot();
  });

  it('insertCommissions', async () => {
    expect(await sqlOf((db) => insertCommissions(db, [commission]))).toMatchSnapshot();
  });

  it('updateCommissionRow', async () => {
    const changes = { status: 'paid', payout_id: 'po_1', status_before_void: null, updated_at: at };
    expect(await sqlOf((db) => updateCommissionRow(db, 'com_1', changes))).toMatchSnapshot();
  });

  it('softDeleteCommission', async () => {
    expect(await sqlOf((db) => softDeleteCommission(db, 'com_1', at))).toMatchSnapshot();
  });

  it('replaceChargeId, from a charge_id', async () => {
    expect(await sqlOf((db) => replaceChargeId(db, 'txn_1', 'ch_1', 'ch_2'))).toMatchSnapshot();
  });

  it('replaceChargeId, from none', async () => {
    expect(await sqlOf((db) => replaceChargeId(db, 'txn_1', null, 'ch_2'))).toMatchSnapshot();
  });

  it('setCommissionsChargeStatus', async () => {
    expect(await sqlOf((db) => setCommissionsChargeStatus(db, ['com_1', 'com_2'], 'partially_refunded', at))).toMatchSnapshot();
  });

  it('setCommissionsStatus', async () => {
    expect(await sqlOf((db) => setCommissionsStatus(db, ['com_1', 'com_2'], 'refunded', at))).toMatchSnapshot();
  });

  it('insertRefundEntries', async () => {
    const entry = { ...commission, id: 'com_2', refund_of: 'com_1', type: 'refund', amount: -200, revenue: -1000 };
    expect(await sqlOf((db) => insertRefundEntries(db, [entry]))).toMatchSnapshot();
  });

  it('deleteUnpaidRefundEntries', async () => {
    expect(await sqlOf((db) => deleteUnpaidRefundEntries(db, ['com_1'], at))).toMatchSnapshot();
  });

  it('voidRefundEntries', async () => {
    expect(await sqlOf((db) => voidRefundEntries(db, ['com_1'], 'rejected', at))).toMatchSnapshot();
  });

  it('moveVoidedRefundEntries', async () => {
    expect(await sqlOf((db) => moveVoidedRefundEntries(db, ['com_1'], 'refunded', at))).toMatchSnapshot();
  });

  it('moveVoidedRefundEntries to rejected (their rejection reasons stay)', async () => {
    expect(await sqlOf((db) => moveVoidedRefundEntries(db, ['com_1'], 'rejected', at))).toMatchSnapshot();
  });

  it('restoreRefundEntries', async () => {
    expect(await sqlOf((db) => restoreRefundEntries(db, ['com_1'], at))).toMatchSnapshot();
  });

  it('approveDueBatch', async () => {
    expect(
      await sqlOf(
        (db) => approveDueBatch(db, at, 500),
        () => [],
      ),
    ).toMatchSnapshot();
  });

  it('findEarner', async () => {
    expect(await sqlOf((db) => findEarner(db, 'org_1', 'cus_1'), earnerRow)).toMatchSnapshot();
  });

  it('findEarner, locking the customer', async () => {
    expect(await sqlOf((db) => findEarner(db, 'org_1', 'cus_1', { lock: true }), earnerRow)).toMatchSnapshot();
  });

  it('loadCountedFacts, flows that read nothing: no statement', async () => {
    expect(await sqlOf((db) => loadCountedFacts(db, earner, [flowReading()]))).toMatchSnapshot();
  });

  it('loadCountedFacts, the payment count', async () => {
    expect(await sqlOf((db) => loadCountedFacts(db, earner, [flowReading(firstPayment)]))).toMatchSnapshot();
  });

  it("loadCountedFacts, the payment count and the partner's customers", async () => {
    expect(await sqlOf((db) => loadCountedFacts(db, earner, [flowReading(firstPayment, bigPartner)]))).toMatchSnapshot();
  });
});
