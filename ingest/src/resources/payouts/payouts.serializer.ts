import type { Db } from '../../db/database.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { PayoutRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import { toExpandedPartner } from '../partners/partners.serializer.js';
import type { BalanceRow } from './payouts.repository.js';
import type { BalanceObject, PayoutObject } from './payouts.schema.js';

export function toPayout(p: PayoutRow): PayoutObject {
  return {
    id: p.id,
    status: p.status as PayoutObject['status'],
    amount: p.amount,
    currency: p.currency,
    partner_id: p.partner_id,
    program_id: p.program_id,
    organization_id: p.organization_id,
    payout_method: p.payout_method as PayoutObject['payout_method'],
    payout_details: p.payout_details,
    commission_count: p.commission_count,
    period_start: toIso(p.period_start),
    period_end: toIso(p.period_end),
    reference: p.reference,
    reason: p.reason,
    paid_at: toIsoOrNull(p.paid_at),
    created_at: toIso(p.created_at),
    updated_at: toIso(p.updated_at),
  };
}

/** Payouts with their partners expanded when asked (each loaded once for the page). */
export async function presentPayouts(db: Db, rows: PayoutRow[], expand: 'partner'[] = []): Promise<PayoutObject[]> {
  const partners = expand.includes('partner')
    ? await loadByIds(
        db,
        'partners',
        rows.map((r) => r.partner_id),
      )
    : undefined;
  return rows.map((row) => {
    const partner = partners?.get(row.partner_id);
    return partner ? { ...toPayout(row), partner: toExpandedPartner(partner) } : toPayout(row);
  });
}

/** A partner's balance: their amounts per currency (none when they have no commissions). */
export function toBalance(partner: { id: string; payout_method: string; minimum_payout: number }, amounts: BalanceRow[]): BalanceObject {
  return {
    partner_id: partner.id,
    payout_method: partner.payout_method as BalanceObject['payout_method'],
    minimum_payout: partner.minimum_payout,
    amounts: amounts.map(({ currency, pending, payable, in_payouts, paid, on_hold }) => ({
      currency,
      pending,
      payable,
      in_payouts,
      paid,
      on_hold,
    })),
  };
}
