import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { TransactionRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import { toExpandedCustomer } from '../customers/customers.serializer.js';
import { presentWithPartnerAndProgram } from '../expand-partner-program.js';
import type { ExpandedTransaction, TransactionExpand, TransactionObject } from './transactions.schema.js';

export function toTransaction(t: TransactionRow): TransactionObject {
  return {
    id: t.id,
    status: t.status as TransactionObject['status'],
    amount: t.amount,
    refunded_amount: t.refunded_amount,
    currency: t.currency,
    customer_id: t.customer_id,
    partner_id: t.partner_id,
    program_id: t.program_id,
    organization_id: t.organization_id,
    click_id: t.click_id,
    charge_id: t.charge_id,
    billing_type: t.billing_type as TransactionObject['billing_type'],
    interval: t.interval as TransactionObject['interval'],
    product_id: t.product_id,
    product_name: t.product_name,
    source: t.source,
    refunded_at: toIsoOrNull(t.refunded_at),
    created_at: toIso(t.created_at),
    updated_at: toIso(t.updated_at),
  };
}

export function toExpandedTransaction(t: TransactionRow): z.output<typeof ExpandedTransaction> {
  return { id: t.id, amount: t.amount, status: t.status as TransactionObject['status'], created_at: toIso(t.created_at) };
}

/** A page of transactions with the requested expansions, each loaded once per page. */
export async function presentTransactions(db: Db, rows: TransactionRow[], expand: TransactionExpand[] = []): Promise<TransactionObject[]> {
  const [base, customers] = await Promise.all([
    presentWithPartnerAndProgram(
      db,
      rows,
      expand.filter((e) => e !== 'customer'),
      toTransaction,
    ),
    expand.includes('customer')
      ? loadByIds(
          db,
          'customers',
          rows.map((r) => r.customer_id),
        )
      : null,
  ]);
  return base.map((t, i) => {
    const customer = customers?.get(rows[i].customer_id);
    return customer ? { ...t, customer: toExpandedCustomer(customer) } : t;
  });
}
