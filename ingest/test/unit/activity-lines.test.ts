import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/db/schema.js';
import { type ActivityNames, describeEvent } from '../../src/resources/events/activity.js';

/**
 * Activity lines of the events the API tests of ingest/test/dashboard/activity.test.ts do not
 * make (payouts, a test event, a change of other fields than the status), from snapshots as
 * migration 0009 writes them.
 */

const AT = new Date('2026-03-04T05:06:07.000Z');

const names: ActivityNames = {
  partners: new Map([
    ['ptn_emma', { name: 'Emma Stone', live: true }],
    ['ptn_gone', { name: 'gone@x.com', live: false }],
  ]),
  customers: new Map([['cus_ana', { name: 'ana@x.com', live: true }]]),
  liveTransactions: new Set(),
};

function event(type: string, snapshot: Record<string, unknown>, previous?: Record<string, unknown>): EventRow {
  return {
    id: 'evt_1',
    seq: 1,
    organization_id: 'org_1',
    program_id: 'prg_1',
    type,
    object_id: String(snapshot.id),
    snapshot,
    previous_snapshot: previous ?? null,
    created_at: AT,
    dispatched_at: AT,
  };
}

const said = (e: EventRow, currency = 'USD') => {
  const { text, path } = describeEvent(e, names, currency);
  return { text, path };
};

const payout = {
  id: 'po_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'ptn_emma',
  status: 'pending',
  amount: 5000,
  currency: 'EUR',
  payout_method: 'paypal',
  payout_details: {},
  commission_count: 2,
  period_start: '2026-02-01T00:00:00.000Z',
  period_end: '2026-03-01T00:00:00.000Z',
  reference: null,
  reason: null,
  paid_at: null,
  created_at: '2026-03-01T00:00:00.000Z',
  updated_at: '2026-03-01T00:00:00.000Z',
};

describe('activity lines', () => {
  it('says what happened to a payout, in its currency, with its page', () => {
    expect(said(event('payout.created', payout))).toEqual({
      text: 'Payout of €50.00 to Emma Stone created (pending)',
      path: '/payouts/po_1',
    });
    const processing = { ...payout, status: 'processing' };
    expect(said(event('payout.updated', processing, payout)).text).toBe('Payout of €50.00 to Emma Stone is now processing (was pending)');
    const paid = { ...processing, status: 'paid', reference: 'PP-1', paid_at: '2026-03-02T00:00:00.000Z' };
    expect(said(event('payout.paid', paid, processing)).text).toBe('Payout of €50.00 to Emma Stone paid');
    expect(said(event('payout.failed', { ...processing, status: 'failed' }, processing)).text).toBe(
      'Payout of €50.00 to Emma Stone failed',
    );
    expect(said(event('payout.updated', { ...payout, reference: 'PP-2' }, payout)).text).toBe(
      'Payout of €50.00 to Emma Stone changed: reference',
    );
  });

  it('names the fields an update changed as the API names them, leaving out updated_at', () => {
    // The fields the serializer reads and this change touches; those left out read as undefined before and after.
    const partner = {
      id: 'ptn_emma',
      status: 'active',
      first_name: 'Emma',
      last_name: 'Stone',
      group_id: 'grp_1',
      created_at: '2026-03-01T00:00:00.000Z',
      updated_at: '2026-03-01T00:00:00.000Z',
    };
    const renamed = { ...partner, last_name: 'Stone-Lee', group_id: 'grp_2', updated_at: '2026-03-02T00:00:00.000Z' };
    expect(said(event('partner.updated', renamed, partner))).toEqual({
      text: 'Partner Emma Stone changed: last name, group',
      path: '/partners/ptn_emma',
    });
  });

  it('names a partner not found as such, links a deleted one nowhere, and gives a commission without currency the program’s', () => {
    const commission = {
      id: 'comm_1',
      organization_id: 'org_1',
      program_id: 'prg_1',
      partner_id: 'ptn_gone',
      customer_id: null,
      transaction_id: null,
      type: 'reward',
      status: 'approved',
      amount: 1500,
      currency: null,
    };
    expect(said(event('commission.created', commission), 'JPY')).toEqual({ text: 'Commission of ¥1,500 for gone@x.com (approved)' });
    const link = { id: 'lnk_1', organization_id: 'org_1', program_id: 'prg_1', partner_id: 'ptn_unknown', param: 'via', value: 'x' };
    expect(said(event('link.created', link))).toEqual({ text: 'Link ?via=x created for a partner' });
  });

  it('says a test event is one, and any other type by its name', () => {
    expect(said(event('test', { id: 'we_1' }))).toEqual({ text: 'Test event sent to a webhook endpoint' });
    expect(said(event('something.new', { id: 'x_1' }))).toEqual({ text: 'something.new' });
  });
});
