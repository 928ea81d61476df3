import { describe, expect, it } from 'vitest';
import type { NewCommission, NewTransaction } from '../../src/db/schema.js';
import {
  findTransaction,
  findTransactionByCharge,
  findTransactionOfCharges,
  selectTransactionList,
  selectTransactions,
  softDeleteTransaction,
  updateTransactionRow,
  writePayment,
} from '../../src/resources/transactions/transactions.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const at = new Date('2026-01-01T00:00:00Z');

const transaction: NewTransaction = {
  id: 'txn_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'prt_1',
  customer_id: 'cus_1',
  click_id: null,
  charge_id: 'ch_1',
  status: 'paid',
  amount: 4900,
  refunded_amount: 0,
  currency: 'usd',
  billing_type: 'subscription',
  interval: 'month',
  product_id: null,
  product_name: null,
  source: null,
  refunded_at: null,
  created_at: at,
  updated_at: at,
};

const commission: NewCommission = {
  id: 'com_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'prt_1',
  customer_id: 'cus_1',
  transaction_id: 'txn_1',
  flow_id: 'flw_1',
  refund_of: null,
  type: 'reward',
  status: 'pending',
  amount: 980,
  revenue: 4900,
  currency: 'usd',
  charge_id: 'ch_1',
  charge_status: 'paid',
  source: null,
  approval_type: 'scheduled',
  scheduled_approval_date: at,
  payout_id: null,
  created_at: at,
  updated_at: at,
};

describe('transactions repository SQL', () => {
  it('selectTransactions', async () => {
    expect(await sqlOf((db) => selectTransactions(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('selectTransactionList, program only', async () => {
    expect(await sqlOf((db) => selectTransactionList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectTransactionList, every filter', async () => {
    const filters = { programId: 'prg_1', partnerId: 'prt_1', customerId: 'cus_1', chargeId: 'ch_1' };
    expect(await sqlOf((db) => selectTransactionList(db, 'org_1', filters).execute())).toMatchSnapshot();
  });

  it('findTransaction', async () => {
    expect(await sqlOf((db) => findTransaction(db, 'org_1', 'txn_1'))).toMatchSnapshot();
  });

  it('findTransaction, locked', async () => {
    expect(await sqlOf((db) => findTransaction(db, 'org_1', 'txn_1', true))).toMatchSnapshot();
  });

  it('findTransactionOfCharges: linked ids or charge ids, one statement', async () => {
    expect(await sqlOf((db) => findTransactionOfCharges(db, 'prg_1', { ids: ['txn_1'], chargeIds: ['in_1', 'pi_1'] }))).toMatchSnapshot();
  });

  it('findTransactionByCharge', async () => {
    expect(await sqlOf((db) => findTransactionByCharge(db, 'prg_1', 'ch_1'))).toMatchSnapshot();
  });

  it('writePayment, the transaction alone', async () => {
    expect(await sqlOf((db) => writePayment(db, transaction, [], false))).toMatchSnapshot();
  });

  it('writePayment, with commissions and the customer becoming active', async () => {
    expect(await sqlOf((db) => writePayment(db, transaction, [commission], true))).toMatchSnapshot();
  });

  it('updateTransactionRow, descriptive fields', async () => {
    expect(
      await sqlOf((db) => updateTransactionRow(db, 'txn_1', { charge_id: 'ch_2', product_name: 'Pro', updated_at: at })),
    ).toMatchSnapshot();
  });

  it('updateTransactionRow, a refund', async () => {
    const refund = { refunded_amount: 1000, status: 'partially_refunded', refunded_at: at, updated_at: at };
    expect(await sqlOf((db) => updateTransactionRow(db, 'txn_1', refund))).toMatchSnapshot();
  });

  it('softDeleteTransaction', async () => {
    expect(await sqlOf((db) => softDeleteTransaction(db, 'txn_1', at))).toMatchSnapshot();
  });
});
