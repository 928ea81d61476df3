import { describe, expect, it } from 'vitest';
import { recentActivity } from '../../src/resources/events/activity.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

/** Events of three partners, each about a link, a customer, a payment or a commission. */
function events(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: `evt_${i}`,
    type: ['link.created', 'customer.created', 'transaction.created', 'commission.created'][i % 4],
    created_at: AT,
    snapshot: {
      id: `obj_${i}`,
      partner_id: `ptn_${i % 3}`,
      customer_id: 'cus_1',
      transaction_id: 'txn_1',
      param: 'ref',
      value: `v${i}`,
      status: 'lead',
      amount: 100,
      refunded_amount: 0,
      currency: 'USD',
      identifier: 'x',
    },
    previous_snapshot: null,
  }));
}

describe('recent activity SQL', () => {
  it('reads the page of events, then the names it needs in one query per table, however many lines', async () => {
    const program = { id: 'prg_1', organization_id: 'org_1', currency_code: 'USD' };
    const recorded = await sqlOf(
      (db) => recentActivity(db, program, 8),
      (query) => (query.includes('from "events"') ? events(8) : []),
    );
    expect(recorded).toMatchSnapshot();
    const many = await sqlOf(
      (db) => recentActivity(db, program, 40),
      (query) => (query.includes('from "events"') ? events(40) : []),
    );
    expect(many.split(';\n\n')).toHaveLength(4);
  });

  it('asks for no names when there is no event', async () => {
    const recorded = await sqlOf(
      (db) => recentActivity(db, { id: 'prg_1', organization_id: 'org_1', currency_code: 'USD' }, 8),
      () => [],
    );
    expect(recorded.split(';\n\n')).toHaveLength(1);
  });
});
