import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { CustomerRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import { type PartnerProgramExpand, presentWithPartnerAndProgram } from '../expand-partner-program.js';
import type { CustomerStatsRow } from './customers.repository.js';
import type { CustomerObject, CustomerStatsObject, CustomerWithIdentifierObject, ExpandedCustomer } from './customers.schema.js';

export function toCustomer(c: CustomerRow): CustomerObject {
  return {
    id: c.id,
    customer_id: c.customer_id,
    email: c.email,
    name: c.name,
    status: c.status as CustomerObject['status'],
    plan: c.plan,
    subscription_id: c.subscription_id,
    lead_at: toIso(c.lead_at),
    active_at: toIsoOrNull(c.active_at),
    click_id: c.click_id,
    partner_id: c.partner_id,
    program_id: c.program_id,
    organization_id: c.organization_id,
    promotion_code_id: c.promotion_code_id,
    created_at: toIso(c.created_at),
    updated_at: toIso(c.updated_at),
  };
}

export function toCustomerWithIdentifier(c: CustomerRow): CustomerWithIdentifierObject {
  return { ...toCustomer(c), identifier: c.identifier };
}

export function toExpandedCustomer(c: CustomerRow): z.output<typeof ExpandedCustomer> {
  return { id: c.id, email: c.email, name: c.name, status: c.status as CustomerObject['status'], created_at: toIso(c.created_at) };
}

export function toCustomerStats(s: CustomerStatsRow): CustomerStatsObject {
  return {
    total_revenue: s.total_revenue,
    total_commission: s.total_commission,
    total_orders: s.total_orders,
    last_order_at: toIsoOrNull(s.last_order_at),
  };
}

/** A page of customers with the requested partner and program expansions, each loaded once per page. */
export function presentCustomers(db: Db, rows: CustomerRow[], expand: PartnerProgramExpand[] | undefined) {
  return presentWithPartnerAndProgram(db, rows, expand, toCustomer);
}
