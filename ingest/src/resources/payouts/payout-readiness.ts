import { EXPORT_FORMATS_BY_NAME } from './payout-exports.js';
import type { SKIP_REASONS } from './payouts.schema.js';

/**
 * Will this partner be paid in this currency, and if not why (ingest/docs/payouts.md#readiness):
 * the one rule that payout generation follows (payouts.service.ts judges each sum it took with
 * it) and that the portal's next payout and the dashboard's generation report put in words. A
 * reason is a code of GenerateResult's `skipped[].reason`, so the API names it too.
 */

/** Why a partner gets no payout in a currency. */
export type NotReadyReason = (typeof SKIP_REASONS)[number];

/** What the rule reads: the same facts a generation takes from SQL and the portal from the balance. */
export interface ReadinessFacts {
  /** What the partner is owed in the currency: approved commissions in no unpaid payout, refund entries netting (below 0 when they owe). */
  amount: number;
  /** Their minimum payout: their group's, else the program's. */
  minimum: number;
  payoutMethod: string;
  payoutDetails: Readonly<Record<string, string>> | null;
  partnerDeleted: boolean;
  /** What open risk events hold of it besides `amount` (ingest/docs/risk.md); left out, none. */
  held?: number;
}

/** The methods whose batch file pays the e-mail address of the payout details (payout-exports.ts). */
export type MethodPaidByEmail = NonNullable<(typeof EXPORT_FORMATS_BY_NAME)[keyof typeof EXPORT_FORMATS_BY_NAME]['method']>;

const PAID_BY_EMAIL: ReadonlySet<string> = new Set(Object.values(EXPORT_FORMATS_BY_NAME).flatMap((f) => (f.method ? [f.method] : [])));

/** What stands between the partner's payout method and a payout, whatever they are owed. */
export type PayoutMethodProblem = { reason: 'no_payout_method' } | { reason: 'missing_payout_details'; method: MethodPaidByEmail };

export type PayoutReadiness =
  | { ready: true; amount: number }
  | { ready: false; reason: 'below_minimum'; amount: number; minimum: number }
  | { ready: false; reason: 'missing_payout_details'; amount: number; method: MethodPaidByEmail }
  | { ready: false; reason: 'on_hold'; amount: number; held: number }
  | { ready: false; reason: Exclude<NotReadyReason, 'below_minimum' | 'missing_payout_details' | 'on_hold'>; amount: number };

/** No method chosen, or a method paid by e-mail (PayPal, Wise) without the e-mail in the details; null when neither. */
export function payoutMethodProblem(method: string, details: Readonly<Record<string, string>> | null): PayoutMethodProblem | null {
  if (method === 'none') return { reason: 'no_payout_method' };
  if (PAID_BY_EMAIL.has(method) && !details?.email) return { reason: 'missing_payout_details', method: method as MethodPaidByEmail };
  return null;
}

/**
 * The verdict, checked in this order, the first that holds deciding: a deleted partner is never
 * paid; owing (below 0) is carried forward; nothing owed makes no payout (on hold, when risk
 * events hold what they are owed); then the payout method
 * and its details; then the minimum. A live partner is paid whatever their status
 * (ingest/docs/payouts.md#a-partner-is-paid-whatever-their-status).
 */
export function payoutReadiness(facts: ReadinessFacts): PayoutReadiness {
  const { amount } = facts;
  if (facts.partnerDeleted) return { ready: false, reason: 'partner_deleted', amount };
  if (amount < 0) return { ready: false, reason: 'negative_balance', amount };
  if (amount === 0) {
    const held = facts.held ?? 0;
    return held > 0 ? { ready: false, reason: 'on_hold', amount, held } : { ready: false, reason: 'nothing_owed', amount };
  }
  const problem = payoutMethodProblem(facts.payoutMethod, facts.payoutDetails);
  if (problem) return { ready: false, amount, ...problem };
  if (amount < facts.minimum) return { ready: false, reason: 'below_minimum', amount, minimum: facts.minimum };
  return { ready: true, amount };
}
