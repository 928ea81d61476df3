import type { Db } from '../../db/database.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { CommissionRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import { toExpandedCustomer } from '../customers/customers.serializer.js';
import { presentWithPartnerAndProgram } from '../expand-partner-program.js';
import { toExpandedTransaction } from '../transactions/transactions.serializer.js';
import type { CommissionExpand, CommissionInclude, CommissionObject, FullCommissionObject } from './commissions.schema.js';

/**
 * List and retrieve: the short field set of the Partnership Program API
 * (README.md#the-api-specification), exactly ("show only"). Each field is named here, never spread
 * from the row, so a new column cannot leak into it.
 */
export function toCommission(c: CommissionRow): CommissionObject {
  return {
    id: c.id,
    amount: c.amount,
    customer_id: c.customer_id,
    transaction_id: c.transaction_id,
    charge_id: c.charge_id,
    source: c.source,
    status: c.status as CommissionObject['status'],
    revenue: c.revenue,
    created_at: toIso(c.created_at),
    updated_at: toIso(c.updated_at),
    program_id: c.program_id,
    organization_id: c.organization_id,
  };
}

/**
 * Create and update: the Partnership Program API's full field set, exactly, with amount and revenue
 * as strings.
 */
export function toFullCommission(c: CommissionRow): FullCommissionObject {
  return {
    id: c.id,
    amount: String(c.amount),
    revenue: c.revenue === null ? null : String(c.revenue),
    customer_id: c.customer_id,
    transaction_id: c.transaction_id,
    charge_id: c.charge_id,
    charge_status: c.charge_status,
    source: c.source,
    status: c.status as FullCommissionObject['status'],
    type: c.type,
    currency: c.currency,
    partner_id: c.partner_id,
    program_id: c.program_id,
    organization_id: c.organization_id,
    payout_id: c.payout_id,
    scheduled_approval_date: toIsoOrNull(c.scheduled_approval_date),
    approval_type: c.approval_type as FullCommissionObject['approval_type'],
    flow_id: c.flow_id,
    created_at: toIso(c.created_at),
    updated_at: toIso(c.updated_at),
  };
}

/**
 * What the `include[]` values asked for add to a commission, beside its field set: the one place
 * that says what each value shows (the API's answers and the commission events read it).
 */
export function includedFields(c: CommissionRow, include: readonly CommissionInclude[] = []): { rejection_reason?: string | null } {
  // An event snapshot made before migration 0012 has no such key.
  return include.includes('rejection_reason') ? { rejection_reason: c.rejection_reason ?? null } : {};
}

/** A created or updated commission as the API answers it: the full field set, and what `include[]` adds. */
export function presentFullCommission(c: CommissionRow, include?: readonly CommissionInclude[]): FullCommissionObject {
  return { ...toFullCommission(c), ...includedFields(c, include) };
}

/** A page of commissions in the short field set, with the requested expansions loaded once per page and what `include[]` adds. */
export async function presentCommissions(
  db: Db,
  rows: CommissionRow[],
  expand: CommissionExpand[] = [],
  include?: readonly CommissionInclude[],
): Promise<CommissionObject[]> {
  const [base, customers, transactions] = await Promise.all([
    presentWithPartnerAndProgram(
      db,
      rows,
      expand.filter((e) => e === 'partner' || e === 'program'),
      toCommission,
    ),
    expand.includes('customer')
      ? loadByIds(
          db,
          'customers',
          rows.flatMap((r) => (r.customer_id ? [r.customer_id] : [])),
        )
      : null,
    expand.includes('transaction')
      ? loadByIds(
          db,
          'transactions',
          rows.flatMap((r) => (r.transaction_id ? [r.transaction_id] : [])),
        )
      : null,
  ]);
  return base.map((commission, i) => {
    const customer = rows[i].customer_id ? customers?.get(rows[i].customer_id!) : undefined;
    const transaction = rows[i].transaction_id ? transactions?.get(rows[i].transaction_id!) : undefined;
    return {
      ...commission,
      ...(customer ? { customer: toExpandedCustomer(customer) } : {}),
      ...(transaction ? { transaction: toExpandedTransaction(transaction) } : {}),
      ...includedFields(rows[i], include),
    };
  });
}
