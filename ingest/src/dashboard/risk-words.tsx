import { formatMoney } from '../money.js';
import { count } from '../pages/format.js';
import type { Children } from '../pages/render.js';
import type { RiskEventObject, RiskResolution } from '../resources/risk/risk.schema.js';
import type { RiskRule } from '../resources/risk/risk-rules.js';
import { programPath } from './context.js';

/**
 * What the pages say about fraud and risk (ingest/docs/risk.md): each rule's name and what it
 * flags, an event's evidence and decision in words, and the badge a flagged partner wears on the
 * partner list and their own page, linking to the Risk page filtered to them
 * (ingest/docs/dashboard.md#risk). The Risk page, its settings tab and the partner pages share it.
 */

/** Each rule's name on the pages. */
export const RULE_TITLES: Record<RiskRule, string> = {
  self_referral: 'Self-referral',
  shared_payout_account: 'Shared payout account',
  disposable_email: 'Disposable e-mail',
  paid_ad_traffic: 'Paid ad traffic',
  banned_referral_source: 'Banned referral source',
  click_flooding: 'Click flooding',
  refund_rate: 'High refund rate',
};

/** What each rule flags and what its event holds, in a sentence or two (ingest/docs/risk.md#the-rules). */
export const RULE_WORDS: Record<RiskRule, string> = {
  self_referral:
    "A customer whose e-mail is the partner's own or their payout e-mail (case, +tags and Gmail's dots aside), or who signed up from the browser the partner uses for the portal. Holds that customer's commissions.",
  shared_payout_account:
    "Two live partners paid into the same PayPal or Wise e-mail or bank account. Holds all of both partners' commissions.",
  disposable_email: "A customer whose e-mail is at a disposable e-mail provider. Holds that customer's commissions.",
  paid_ad_traffic:
    "A customer whose click landed from a paid ad (its address carried gclid, fbclid, msclkid or another ad click id). Holds that customer's commissions.",
  banned_referral_source:
    "A customer whose click came from one of the hosts below, or from a subdomain of one. Holds that customer's commissions.",
  click_flooding:
    "More clicks on one partner's links from one browser within an hour than the limit below. Holds the commissions of the customers who came from that browser.",
  refund_rate:
    "A partner whose refunds over the last 60 days are a larger share of their revenue than the limit below, once they have at least the payments below in that time. Holds all of the partner's commissions.",
};

/** Whose commissions an open event holds (`holds`, ingest/docs/risk.md#held-money). */
export const HOLDS_WORDS: Record<RiskEventObject['holds'], string> = {
  customer: "this customer's commissions",
  visitor: 'the commissions of customers from this browser',
  partner: "all of the partner's commissions",
};

/** A decision, as the resolved events say it (ingest/docs/risk.md#review). */
export const RESOLUTION_WORDS: Record<RiskResolution, string> = {
  dismiss: 'Dismissed',
  reject_commissions: 'Commissions rejected',
  ban_partner: 'Partner banned',
};

/** The Risk page of the program, with its filters (a partner's id, `status=resolved` …). */
export function riskPath(program: { id: string }, query: Readonly<Record<string, string | undefined>> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const rest = params.toString();
  return programPath(program, rest ? `/risk?${rest}` : '/risk');
}

/**
 * A partner's open risk events as a badge ("Flagged: 2", read as "Flagged: 2 open risk events")
 * linking to the Risk page filtered to them; nothing while they have none.
 */
export function RiskBadge({ program, partnerId, open }: { program: { id: string }; partnerId: string; open: number | undefined }) {
  if (!open) return null;
  return (
    <a class="badge badge-flagged" href={riskPath(program, { partner_id: partnerId })}>
      {`Flagged: ${count(open)}`}
      <span class="visually-hidden">{` open risk event${open === 1 ? '' : 's'}`}</span>
    </a>
  );
}

/** What an open event holds now, per currency, e.g. "$20.00 in 1 commission"; null when it holds nothing yet. */
export function heldWords(held: RiskEventObject['held']): string | null {
  const some = held.filter((h) => h.commissions > 0);
  if (some.length === 0) return null;
  return some
    .map((h) => `${formatMoney(h.amount, h.currency)} in ${count(h.commissions)} commission${h.commissions === 1 ? '' : 's'}`)
    .join(' · ');
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const number = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const percent = (n: number) => `${new Intl.NumberFormat('en', { maximumFractionDigits: 2 }).format(n)}%`;

/** The payout account kinds of `payoutAccountOf` (risk-identity.ts), in words. */
const ACCOUNT_WORDS: Record<string, string> = {
  email: 'payout e-mail address',
  iban: 'IBAN',
  account: 'bank account',
  wallet: 'wallet',
};

/** What matched for a self-referral, by the field it names. */
const SELF_REFERRAL_WORDS: Record<string, string> = {
  email: "The customer's e-mail is the partner's e-mail",
  payout_email: "The customer's e-mail is the partner's payout e-mail",
  browser: 'The customer signed up from the browser the partner uses for the partner portal',
};

/**
 * An event's evidence in plain words, one line per thing that matched
 * (ingest/docs/risk.md#the-rules). `otherPartner` names the partner who shares a payout account.
 * Evidence is stored JSON: what a line cannot read is left out, and an event with no line readable
 * says its rule's name.
 */
export function evidenceLines(event: RiskEventObject, otherPartner: Children): Children[] {
  const e = event.evidence;
  const lines: Children[] = [];
  switch (event.rule) {
    case 'self_referral':
      for (const field of texts(e.matched)) lines.push(SELF_REFERRAL_WORDS[field] ?? `The customer's ${field} is the partner's`);
      break;
    case 'shared_payout_account': {
      const kind = ACCOUNT_WORDS[text(e.account) ?? ''] ?? 'payout account';
      lines.push(
        <>
          Shares a payout account with {otherPartner} (the same {kind})
        </>,
      );
      break;
    }
    case 'disposable_email': {
      const domain = text(e.domain);
      if (domain) lines.push(`Disposable e-mail domain ${domain}`);
      break;
    }
    case 'paid_ad_traffic': {
      const ids = texts(e.ad_click_ids);
      if (ids.length > 0) lines.push(`Landed from a paid ad (${ids.join(', ')})`);
      break;
    }
    case 'banned_referral_source': {
      const host = text(e.referrer_host);
      const banned = text(e.banned_host);
      if (host && banned) {
        lines.push(host === banned ? `Referred by banned host ${banned}` : `Referred by ${host}, a subdomain of banned host ${banned}`);
      }
      break;
    }
    case 'click_flooding': {
      const clicks = number(e.clicks_in_hour);
      const limit = number(e.max_clicks_per_hour);
      if (clicks !== null)
        lines.push(`${count(clicks)} clicks within an hour from one browser${limit === null ? '' : ` (limit ${count(limit)})`}`);
      break;
    }
    case 'refund_rate': {
      const share = number(e.percent);
      const days = number(e.window_days);
      const limit = number(e.max_percent);
      const payments = number(e.payments);
      const currency = text(e.currency);
      const refunded = number(e.refunded);
      const revenue = number(e.revenue);
      if (share !== null) {
        const amounts =
          currency && refunded !== null && revenue !== null
            ? `: ${formatMoney(refunded, currency)} of ${formatMoney(revenue, currency)}`
            : '';
        const limits = [
          limit === null ? null : `limit ${percent(limit)}`,
          payments === null ? null : `${count(payments)} payment${payments === 1 ? '' : 's'}`,
        ]
          .filter(Boolean)
          .join(', ');
        lines.push(`Refunds are ${percent(share)} of revenue over ${count(days ?? 60)} days${amounts}${limits ? ` (${limits})` : ''}`);
      }
      break;
    }
  }
  return lines.length > 0 ? lines : [RULE_TITLES[event.rule]];
}
