import type { z } from 'zod';
import type { TransactionRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import type { ExpandedTransaction, TransactionObject } from './transactions.schema.js';

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
