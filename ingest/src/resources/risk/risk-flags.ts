import type { Insertable } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/database.js';
import type { CustomerRow, PartnerRow, RiskEventRow, RiskEventsTable, TransactionRow } from '../../db/schema.js';
import { newId } from '../../ids.js';
import {
  deleteOldPartnerBrowsers,
  findClickSignals,
  findPartnersPaidInto,
  findProgramRisk,
  insertRiskEvents,
  lockPayoutAccount,
  partnerBrowserMatches,
  refundFigures,
  rememberPartnerBrowser,
} from './risk.repository.js';
import { hostIsListed, isDisposableAddress, mailboxOf, referrerHost } from './risk-identity.js';
import { rulesOf } from './risk-rules.js';

/**
 * The fraud and risk rules at work where their data arrives (ingest/docs/risk.md), each in the
 * SQL transaction of the change: a customer made or given a new e-mail, a partner's payout
 * details, a refund; and the partner's browser remembered from the portal. The windowed click
 * rule is the job's (risk-job.ts); the merchant's review is risk.service.ts. This module reads
 * nothing of other resources' services, so every service may call it.
 */

export type NewRiskEvent = Omit<Insertable<RiskEventsTable>, 'id' | 'status' | 'created_at' | 'updated_at' | 'evidence'> & {
  evidence: Record<string, unknown>;
};

/** The row of a new, open risk event. */
export function eventRow(e: NewRiskEvent, now: Date): Insertable<RiskEventsTable> {
  return { ...e, id: newId('riskEvent'), status: 'open', evidence: JSON.stringify(e.evidence), created_at: now, updated_at: now };
}

/** What the customer rules may know of the signup itself, beside the customer's click. */
export interface SignupSignals {
  /** The fingerprint of the browser that signed up (the script's signup). */
  visitorHash?: string | null;
}

/**
 * The customer rules, for a customer just made or whose e-mail changed, in its SQL transaction:
 * self-referral, disposable e-mail, paid-ad traffic and banned referral source. Each flags the
 * customer at most once (its dedupe key), and holds the customer's commissions.
 */
export async function flagCustomer(
  trx: Db,
  customer: CustomerRow,
  partner: PartnerRow,
  signals: SignupSignals = {},
): Promise<RiskEventRow[]> {
  const program = await findProgramRisk(trx, customer.program_id);
  if (!program) return [];
  const rules = rulesOf(program);
  // The click is read only for the rules that look at it: with those off, a customer costs the
  // program's read alone (ingest/bench/README.md#fraud-and-risk-rules).
  const readsClick = rules.self_referral.enabled || rules.paid_ad_traffic.enabled || rules.banned_referral_source.enabled;
  if (!readsClick && !rules.disposable_email.enabled) return [];
  const click = readsClick && customer.click_id ? await findClickSignals(trx, customer.click_id) : undefined;
  const base = {
    organization_id: customer.organization_id,
    program_id: customer.program_id,
    partner_id: partner.id,
    customer_id: customer.id,
    click_id: customer.click_id,
    holds: 'customer' as const,
  };
  const events: NewRiskEvent[] = [];

  if (rules.self_referral.enabled) {
    const matched: string[] = [];
    const mailbox = mailboxOf(customer.email);
    if (mailbox && mailbox === mailboxOf(partner.email)) matched.push('email');
    if (mailbox && mailbox === mailboxOf(partner.payout_details?.email)) matched.push('payout_email');
    const hashes = [click?.visitor_hash, signals.visitorHash].filter((h): h is string => Boolean(h));
    const browser = [...new Set(hashes)];
    if (browser.length > 0 && (await partnerBrowserMatches(trx, partner.id, browser))) matched.push('browser');
    if (matched.length > 0) {
      events.push({
        ...base,
        rule: 'self_referral',
        dedupe_key: `self_referral:${customer.id}`,
        visitor_hash: matched.includes('browser') ? browser[0] : null,
        evidence: { matched },
      });
    }
  }
  if (rules.disposable_email.enabled && isDisposableAddress(customer.email)) {
    const domain = customer.email!.slice(customer.email!.lastIndexOf('@') + 1).toLowerCase();
    events.push({ ...base, rule: 'disposable_email', dedupe_key: `disposable_email:${customer.id}`, evidence: { domain } });
  }
  if (rules.paid_ad_traffic.enabled && click?.ad_click_ids && click.ad_click_ids.length > 0) {
    events.push({
      ...base,
      rule: 'paid_ad_traffic',
      dedupe_key: `paid_ad_traffic:${customer.id}`,
      evidence: { ad_click_ids: click.ad_click_ids },
    });
  }
  if (rules.banned_referral_source.enabled && click) {
    const host = referrerHost(click.referrer);
    const listed = host ? hostIsListed(host, rules.banned_referral_source.hosts) : undefined;
    if (host && listed) {
      events.push({
        ...base,
        rule: 'banned_referral_source',
        dedupe_key: `banned_referral_source:${customer.id}`,
        evidence: { referrer_host: host, banned_host: listed },
      });
    }
  }
  const now = new Date();
  return insertRiskEvents(
    trx,
    events.map((e) => eventRow(e, now)),
  );
}

/**
 * The shared payout account rule, for a partner just made or changed, in its SQL transaction:
 * every other live partner of the program paid into the same account is flagged with it, each
 * pair once, both partners' money held.
 */
export async function flagSharedPayoutAccount(trx: Db, partner: PartnerRow): Promise<RiskEventRow[]> {
  if (!partner.payout_account || partner.deleted_at) return [];
  const program = await findProgramRisk(trx, partner.program_id);
  if (!program || !rulesOf(program).shared_payout_account.enabled) return [];
  await lockPayoutAccount(trx, partner.program_id, partner.payout_account);
  const others = await findPartnersPaidInto(trx, partner.program_id, partner.payout_account, partner.id);
  const kind = partner.payout_account.slice(0, partner.payout_account.indexOf(':'));
  const now = new Date();
  const rows = others.flatMap((other) => {
    const pair = [partner.id, other.id].sort().join(':');
    return [
      [partner.id, other.id],
      [other.id, partner.id],
    ].map(([of, with_]) =>
      eventRow(
        {
          organization_id: partner.organization_id,
          program_id: partner.program_id,
          partner_id: of,
          other_partner_id: with_,
          holds: 'partner',
          rule: 'shared_payout_account',
          dedupe_key: `shared_payout_account:${pair}:${of}`,
          evidence: { account: kind, other_partner_id: with_ },
        },
        now,
      ),
    );
  });
  return insertRiskEvents(trx, rows);
}

const REFUND_WINDOW_DAYS = 60;

/**
 * The refund rate rule, after a refund, in its SQL transaction: the partner's refunded revenue
 * over the last 60 days against their revenue, in each currency. At most one event per partner
 * a month; it holds all the partner's money.
 */
export async function flagRefundRate(trx: Db, transaction: TransactionRow): Promise<RiskEventRow[]> {
  const program = await findProgramRisk(trx, transaction.program_id);
  if (!program) return [];
  const rule = rulesOf(program).refund_rate;
  if (!rule.enabled) return [];
  const now = new Date();
  const figures = await refundFigures(trx, transaction.partner_id, new Date(now.getTime() - REFUND_WINDOW_DAYS * 86_400_000));
  const over = figures.find((f) => f.payments >= rule.min_payments && f.revenue > 0 && (f.refunded * 100) / f.revenue > rule.max_percent);
  if (!over) return [];
  const percent = Math.round((over.refunded * 10_000) / over.revenue) / 100;
  return insertRiskEvents(trx, [
    eventRow(
      {
        organization_id: transaction.organization_id,
        program_id: transaction.program_id,
        partner_id: transaction.partner_id,
        transaction_id: transaction.id,
        holds: 'partner',
        rule: 'refund_rate',
        dedupe_key: `refund_rate:${transaction.partner_id}:${now.toISOString().slice(0, 7)}`,
        evidence: {
          window_days: REFUND_WINDOW_DAYS,
          currency: over.currency,
          payments: over.payments,
          revenue: over.revenue,
          refunded: over.refunded,
          percent,
          max_percent: rule.max_percent,
        },
      },
      now,
    ),
  ]);
}

/** How long the browser of a partner's portal session is remembered after its last use. */
const PARTNER_BROWSER_DAYS = 90;

/** Forgets the browsers partners have not used their portal from for PARTNER_BROWSER_DAYS. */
export const forgetOldPartnerBrowsers = (db: Db) => deleteOldPartnerBrowsers(db, new Date(Date.now() - PARTNER_BROWSER_DAYS * 86_400_000));

/**
 * The partners' browsers this process remembered within the hour. SQL touches a known browser at
 * most hourly anyway (rememberPartnerBrowser), so a signed-in partner's pages write once per
 * browser, process and hour instead of running a statement each; a browser that changes within a
 * session (another network) is still remembered at its first page.
 */
const rememberedLately = new LRUCache<string, true>({ max: 10_000, ttl: 3_600_000 });

/** Remembers the browser of a partner's portal session (its fingerprint only), for the self-referral rule. */
export async function rememberPortalBrowser(db: Db, partner: Pick<PartnerRow, 'id' | 'program_id'>, visitorHash: string | null) {
  if (!visitorHash) return;
  const key = `${partner.id}\n${visitorHash}`;
  if (rememberedLately.has(key)) return;
  await rememberPartnerBrowser(db, { partnerId: partner.id, programId: partner.program_id, visitorHash, now: new Date() });
  rememberedLately.set(key, true);
}
