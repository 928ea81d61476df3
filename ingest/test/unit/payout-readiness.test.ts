import { describe, expect, it } from 'vitest';
import { payoutMethodProblem, payoutReadiness, type ReadinessFacts } from '../../src/resources/payouts/payout-readiness.js';
import { SKIP_REASONS } from '../../src/resources/payouts/payouts.schema.js';

/**
 * The payout readiness rule alone (ingest/docs/payouts.md#readiness): every reason once, the
 * order in which they are checked, and the edges of the minimum. That generation and the portal
 * follow it is tested through them in ingest/test/api/payouts.readiness.test.ts.
 */

const paypal: ReadinessFacts = {
  amount: 6000,
  minimum: 5000,
  payoutMethod: 'paypal',
  payoutDetails: { email: 'pay@example.com' },
  partnerDeleted: false,
};

describe('payoutReadiness', () => {
  it('is ready with the amount when a live partner with a complete payout method is owed at least the minimum', () => {
    expect(payoutReadiness(paypal)).toEqual({ ready: true, amount: 6000 });
    expect(payoutReadiness({ ...paypal, amount: 5000 })).toEqual({ ready: true, amount: 5000 });
    expect(payoutReadiness({ ...paypal, amount: 1, minimum: 0 })).toEqual({ ready: true, amount: 1 });
    // Methods not paid by a batch file's e-mail need no details to be paid.
    for (const method of ['bank_transfer', 'wire', 'crypto']) {
      expect(payoutReadiness({ ...paypal, payoutMethod: method, payoutDetails: {} })).toEqual({ ready: true, amount: 6000 });
    }
  });

  it('gives every reason of the API, each with what its words need', () => {
    const cases: [ReadinessFacts, object][] = [
      [
        { ...paypal, partnerDeleted: true },
        { ready: false, reason: 'partner_deleted', amount: 6000 },
      ],
      [
        { ...paypal, amount: -2000 },
        { ready: false, reason: 'negative_balance', amount: -2000 },
      ],
      [
        { ...paypal, amount: 0 },
        { ready: false, reason: 'nothing_owed', amount: 0 },
      ],
      [
        { ...paypal, amount: 0, held: 2500 },
        { ready: false, reason: 'on_hold', amount: 0, held: 2500 },
      ],
      [
        { ...paypal, payoutMethod: 'none', payoutDetails: {} },
        { ready: false, reason: 'no_payout_method', amount: 6000 },
      ],
      [
        { ...paypal, payoutDetails: {} },
        { ready: false, reason: 'missing_payout_details', amount: 6000, method: 'paypal' },
      ],
      [
        { ...paypal, payoutMethod: 'wise', payoutDetails: { email: '' } },
        { ready: false, reason: 'missing_payout_details', amount: 6000, method: 'wise' },
      ],
      [
        { ...paypal, amount: 4999 },
        { ready: false, reason: 'below_minimum', amount: 4999, minimum: 5000 },
      ],
    ];
    for (const [facts, verdict] of cases) expect(payoutReadiness(facts), JSON.stringify(facts)).toEqual(verdict);
    const given = new Set(cases.map(([facts]) => payoutReadiness(facts)).flatMap((v) => (v.ready ? [] : [v.reason])));
    expect([...given].sort()).toEqual([...SKIP_REASONS].sort());
  });

  it('checks in order: deleted, owing, nothing owed, payout method, details, minimum', () => {
    const everything: ReadinessFacts = { amount: -100, minimum: 5000, payoutMethod: 'none', payoutDetails: null, partnerDeleted: true };
    expect(payoutReadiness(everything)).toMatchObject({ reason: 'partner_deleted' });
    expect(payoutReadiness({ ...everything, partnerDeleted: false })).toMatchObject({ reason: 'negative_balance' });
    expect(payoutReadiness({ ...everything, partnerDeleted: false, amount: 0 })).toMatchObject({ reason: 'nothing_owed' });
    expect(payoutReadiness({ ...everything, partnerDeleted: false, amount: 100 })).toMatchObject({ reason: 'no_payout_method' });
    expect(payoutReadiness({ ...everything, partnerDeleted: false, amount: 100, payoutMethod: 'paypal' })).toMatchObject({
      reason: 'missing_payout_details',
    });
    expect(
      payoutReadiness({
        ...everything,
        partnerDeleted: false,
        amount: 100,
        payoutMethod: 'paypal',
        payoutDetails: { email: 'a@b.example' },
      }),
    ).toMatchObject({ reason: 'below_minimum' });
  });
});

describe('payoutMethodProblem', () => {
  it('names no method, and a PayPal or Wise method without its e-mail; nothing otherwise', () => {
    expect(payoutMethodProblem('none', {})).toEqual({ reason: 'no_payout_method' });
    expect(payoutMethodProblem('paypal', null)).toEqual({ reason: 'missing_payout_details', method: 'paypal' });
    expect(payoutMethodProblem('wise', {})).toEqual({ reason: 'missing_payout_details', method: 'wise' });
    expect(payoutMethodProblem('wise', { email: 'w@example.com' })).toBeNull();
    expect(payoutMethodProblem('bank_transfer', {})).toBeNull();
  });
});
