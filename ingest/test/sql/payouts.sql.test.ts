import { describe, expect, it } from 'vitest';
import {
  detachUnpayable,
  exportBatch,
  findPayout,
  heldSumsInUnpaidPayouts,
  insertPayouts,
  joinRewardPayouts,
  lockProgramPayouts,
  lockUnpaidPayoutsOf,
  partnerBalances,
  payPayoutCommissions,
  releasePayoutCommissions,
  selectPartnerMinimums,
  selectPayoutCommissions,
  selectPayoutList,
  shareProgramPayouts,
  summarizeExport,
  takePayableSums,
  updatePayoutRow,
} from '../../src/resources/payouts/payouts.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');
const FILTERS = { programId: 'prg_1', status: 'pending', currency: 'USD', payoutMethod: 'paypal' };

describe('payouts repository SQL', () => {
  it('takePayableSums: the candidates kept in a temporary table and summed with their facts, whatever the number of partners', async () => {
    const generation = { programId: 'prg_1', programCurrency: 'USD', programMinimum: 5000, upTo: AT };
    expect(await sqlOf((db) => takePayableSums(db, generation))).toMatchSnapshot();
    expect(await sqlOf((db) => takePayableSums(db, { ...generation, partnerIds: ['part_1', 'part_2'] }))).toMatchSnapshot();
  });

  it('insertPayouts: the ready sums and their kept commissions in one statement; none, no statement', async () => {
    const sum = {
      partner_id: 'part_1',
      currency: 'USD',
      amount: 6000,
      commission_count: 2,
      period_start: AT,
      period_end: AT,
      minimum_payout: 5000,
      payout_method: 'paypal',
      payout_details: { email: 'pay@example.com' },
      partner_deleted: false,
    };
    const g = { organizationId: 'org_1', programId: 'prg_1', now: AT };
    expect(await sqlOf((db) => insertPayouts(db, g, [sum]))).toMatchSnapshot();
    expect(await sqlOf((db) => insertPayouts(db, g, []))).toBe('');
  });

  it('lockProgramPayouts', async () => {
    expect(await sqlOf((db) => lockProgramPayouts(db, 'prg_1'))).toMatchSnapshot();
  });

  it('shareProgramPayouts: the same key as lockProgramPayouts, shared; several programs in one statement', async () => {
    expect(await sqlOf((db) => shareProgramPayouts(db, ['prg_1']))).toMatchSnapshot();
    expect(await sqlOf((db) => shareProgramPayouts(db, ['prg_2', 'prg_1', 'prg_2']))).toMatchSnapshot();
  });

  it('selectPayoutList: every filter', async () => {
    expect(await sqlOf((db) => selectPayoutList(db, 'org_1', { ...FILTERS, partnerId: 'part_1' }).execute())).toMatchSnapshot();
  });

  it('findPayout: locked', async () => {
    expect(await sqlOf((db) => findPayout(db, 'org_1', 'po_1', true))).toMatchSnapshot();
  });

  it('updatePayoutRow', async () => {
    expect(await sqlOf((db) => updatePayoutRow(db, 'po_1', { status: 'paid', paid_at: AT, updated_at: AT }))).toMatchSnapshot();
  });

  it('payPayoutCommissions', async () => {
    expect(await sqlOf((db) => payPayoutCommissions(db, 'po_1', AT))).toMatchSnapshot();
  });

  it('releasePayoutCommissions', async () => {
    expect(await sqlOf((db) => releasePayoutCommissions(db, ['po_1']))).toMatchSnapshot();
  });

  it('detachUnpayable', async () => {
    expect(await sqlOf((db) => detachUnpayable(db, ['part_1'], AT))).toMatchSnapshot();
  });

  it('joinRewardPayouts: the payouts locked first', async () => {
    expect(await sqlOf((db) => joinRewardPayouts(db, ['comm_2', 'comm_3'], AT))).toMatchSnapshot();
  });

  it('lockUnpaidPayoutsOf: one statement, payouts in id order', async () => {
    expect(await sqlOf((db) => lockUnpaidPayoutsOf(db, ['comm_1', 'comm_2']))).toMatchSnapshot();
  });

  it('selectPayoutCommissions: in it while unpaid, paid by it once paid', async () => {
    expect(await sqlOf((db) => selectPayoutCommissions(db, { id: 'po_1', organization_id: 'org_1' }).execute())).toMatchSnapshot();
  });

  it('partnerBalances: per partner and currency, one statement for a page', async () => {
    expect(await sqlOf((db) => partnerBalances(db, ['part_1', 'part_2'], 'USD'))).toMatchSnapshot();
  });

  it('heldSumsInUnpaidPayouts: a program’s unpaid payouts (the program’s held set), or one partner’s (theirs)', async () => {
    expect(await sqlOf((db) => heldSumsInUnpaidPayouts(db, { programId: 'prg_1' }))).toMatchSnapshot();
    expect(await sqlOf((db) => heldSumsInUnpaidPayouts(db, { programId: 'prg_1', partnerId: 'part_1' }))).toMatchSnapshot();
  });

  it('selectPartnerMinimums', async () => {
    expect(
      await sqlOf((db) => selectPartnerMinimums(db, 'org_1', { programId: 'prg_1', programMinimum: 5000, partnerId: 'part_1' }).execute()),
    ).toMatchSnapshot();
  });

  it('summarizeExport', async () => {
    expect(await sqlOf((db) => summarizeExport(db, 'org_1', FILTERS))).toMatchSnapshot();
  });

  it('exportBatch: after a row', async () => {
    expect(await sqlOf((db) => exportBatch(db, 'org_1', FILTERS, { created_at: AT, id: 'po_1' }, 500))).toMatchSnapshot();
  });
});
