import { moneyList } from '../pages/format.js';
import type { BalanceObject } from '../resources/payouts/payouts.schema.js';

/**
 * Earnings under review (ingest/docs/partner-portal.md#earnings-under-review): the money open risk
 * events hold, the balance's `on_hold` per currency, as the portal's home and referrals pages
 * show it. The partner learns how much waits for a review and that it is paid once the review
 * is done; never why (no rule, evidence or event), since the review is the program team's.
 */

/** What is under review, per currency (the currencies with some). */
export function underReview(amounts: BalanceObject['amounts']): Record<string, number> {
  return Object.fromEntries(amounts.filter((a) => a.on_hold > 0).map((a) => [a.currency, a.on_hold]));
}

/** The sentence that says so, with the amounts ("$25.00 · €3.00"); nothing when nothing is held. */
export function UnderReviewNote({ amounts, currency }: { amounts: BalanceObject['amounts']; currency: string }) {
  const held = underReview(amounts);
  if (Object.keys(held).length === 0) return null;
  return (
    <p class="under-review">
      Some of your earnings are under review: <strong>{moneyList(held, currency)}</strong>. They are paid once the review is done.
    </p>
  );
}
