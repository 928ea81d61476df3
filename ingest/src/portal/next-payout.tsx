import { formatMoney } from '../money.js';
import type { PayoutReadiness } from '../resources/payouts/payout-readiness.js';
import type { BalanceObject } from '../resources/payouts/payouts.schema.js';
import type { PortalContext } from './context.js';
import { payoutLabel } from './partner-fields.js';

/**
 * A partner's next payout in one currency, in words, on the portal's home and referrals pages:
 * the verdict of payoutReadiness (payouts/payout-readiness.ts, the rule generation follows), then
 * what is already on its way, what waits for approval and what is under review (held: the
 * balance's `on_hold`, ingest/docs/partner-portal.md#earnings-under-review). Words only: no rule is
 * decided here.
 */
export function NextPayoutLine({
  ctx,
  amounts,
  readiness,
}: {
  ctx: PortalContext;
  amounts: BalanceObject['amounts'][number];
  readiness: PayoutReadiness;
}) {
  const m = (cents: number) => formatMoney(cents, amounts.currency);
  return (
    <>
      <Verdict ctx={ctx} currency={amounts.currency} readiness={readiness} />
      {amounts.in_payouts > 0 ? ` ${m(amounts.in_payouts)} is in a payout on its way to you.` : null}
      {amounts.pending > 0 ? ` ${m(amounts.pending)} is waiting for approval.` : null}
      {amounts.on_hold > 0 && !(!readiness.ready && readiness.reason === 'on_hold')
        ? ` ${m(amounts.on_hold)} is under review: it is paid once the review is done.`
        : null}
    </>
  );
}

function Verdict({ ctx, currency, readiness }: { ctx: PortalContext; currency: string; readiness: PayoutReadiness }) {
  const m = (cents: number) => formatMoney(cents, currency);
  const settings = <a href={`${ctx.base}/settings`}>Settings</a>;
  if (readiness.ready) return <>You will be paid {m(readiness.amount)} in the next payout.</>;
  switch (readiness.reason) {
    case 'below_minimum':
      return (
        <>
          {m(readiness.minimum - readiness.amount)} more to reach the minimum payout of {m(readiness.minimum)} ({m(readiness.amount)}{' '}
          approved so far).
        </>
      );
    case 'no_payout_method':
      return (
        <>
          {m(readiness.amount)} is approved: choose how you are paid in {settings} to receive it.
        </>
      );
    case 'missing_payout_details':
      return (
        <>
          {m(readiness.amount)} is approved: add your {payoutLabel(readiness.method)} e-mail address in {settings} to receive it.
        </>
      );
    case 'negative_balance':
      return (
        <>
          Refunds exceed your approved commissions by {m(-readiness.amount)}: it is taken off your next payout in {currency}.
        </>
      );
    case 'nothing_owed':
      return <>Nothing to pay for now.</>;
    case 'on_hold':
      // The partner learns that a review holds the money, never why (no rule, no evidence).
      return <>Your earnings of {m(readiness.held)} are under review: they will be paid after the review.</>;
    case 'partner_deleted':
      return <>You are no longer a partner of {ctx.program.name}: no payout is made.</>;
    default:
      return unsaid(readiness);
  }
}

/** A reason without words here fails the type check (a new reason of payoutReadiness must be said). */
function unsaid(readiness: never): never {
  throw new Error(`No words for the payout readiness ${JSON.stringify(readiness)}`);
}
