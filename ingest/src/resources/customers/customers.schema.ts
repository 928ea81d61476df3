import { z } from 'zod';
import { emailField, externalId, idField, isoString, optionalText, shortText, storedTimestampField } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedPartner } from '../partners/partners.schema.js';
import { ExpandedProgram } from '../programs/programs.schema.js';
import { promotionCodeString } from '../promotion-codes/promotion-codes.schema.js';

export const CUSTOMER_STATUSES = ['lead', 'trialing', 'active', 'canceled'] as const;

const customerFields = {
  email: emailField.meta({
    description:
      "The customer's e-mail address; on create, the default identifier. Changing it on update changes the address only: the identifier the customer signed up with stays theirs.",
  }),
  name: optionalText(200),
  subscription_id: externalId.nullable(),
  customer_id: externalId
    .nullable()
    .meta({ description: 'Your own identifier for the customer, unique in the program, compared case-insensitively (409)' }),
  click_id: idField.meta({
    description:
      "Attributes the customer to the click's partner (with partner_id, both must agree: 400 otherwise). On update it must be a click of the customer's partner.",
  }),
  promotion_code: promotionCodeString.meta({
    description:
      "The code the customer used (the code text, not its id). Applied (`promotion_code_id`) only when it is active and the referring partner's, their group's or program-wide; otherwise the response carries the `promotion_code_not_applied` warning (and an update changes nothing).",
  }),
  status: z.enum(CUSTOMER_STATUSES).meta({ description: 'Default on create: lead' }),
  plan: optionalText(200),
  lead_at: storedTimestampField.meta({ description: 'ISO 8601 timestamp, years 1000–8999; default on create: the creation time' }),
  active_at: storedTimestampField.meta({
    description: 'ISO 8601 timestamp, years 1000–8999; set the first time the status becomes active (on create or update) unless given',
  }),
};

export const CustomerCreate = z
  .strictObject({
    ...customerFields,
    partner_id: idField.meta({
      description:
        'The referring partner. Without partner_id or click_id, a partner-owned active promotion code attributes the customer to its partner; nothing to attribute by → 400. Never changes on update.',
    }),
    program_id: idField.meta({
      description: 'Beyond the spec. Optional: narrows a promotion-code lookup when neither partner_id nor click_id is given',
    }),
    identifier: shortText(255).meta({
      description:
        'Beyond the spec (the spec shows it in create and update responses). Unique in the program, compared case-insensitively (409); defaults to email, then customer_id: one of the three is required. Never changes.',
    }),
    created_at: storedTimestampField,
  })
  .partial()
  .meta({ id: 'CustomerCreate' });
export type CustomerCreateInput = z.output<typeof CustomerCreate>;

export const CustomerUpdate = z.strictObject(customerFields).partial().meta({ id: 'CustomerUpdate' });
export type CustomerUpdateInput = z.output<typeof CustomerUpdate>;

const expandParam = multiValue(['partner', 'program']).meta({
  description:
    'One or more of: partner (id, first_name, last_name, email, company_name, status, created_at), program (id, status, name, product_name, subdomain, type, currency_code, created_at)',
});
export const CustomerListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
  search: z
    .string()
    .min(1)
    .max(254)
    .optional()
    .meta({ description: 'Part of the e-mail address (case-insensitive; % and _ match literally)' }),
  status: z.enum(CUSTOMER_STATUSES).optional(),
  expand: expandParam.optional(),
});
export type CustomerListQueryInput = z.output<typeof CustomerListQuery>;
export const CustomerRetrieveQuery = z.strictObject({
  expand: expandParam.optional(),
  include: multiValue(['stats'])
    .optional()
    .meta({ description: 'stats: adds `stats` {total_revenue, total_commission, total_orders, last_order_at}' }),
});
export type CustomerRetrieveQueryInput = z.output<typeof CustomerRetrieveQuery>;

export const CustomerStats = z
  .object({
    total_revenue: z.number().int().meta({ description: 'Cents paid, net of refunds' }),
    total_commission: z
      .number()
      .int()
      .meta({ description: 'Cents of commission not rejected, refunded or deleted, refund entries included, so net of refunds' }),
    total_orders: z.number().int().meta({ description: 'Transactions recorded, refunded ones included' }),
    last_order_at: isoString.nullable().meta({ description: 'When the latest transaction happened; null without one' }),
  })
  .meta({ id: 'CustomerStats' });
export type CustomerStatsObject = z.output<typeof CustomerStats>;

export const Customer = z
  .object({
    id: z.string(),
    customer_id: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    status: z.enum(CUSTOMER_STATUSES),
    plan: z.string().nullable(),
    subscription_id: z.string().nullable(),
    lead_at: isoString,
    active_at: isoString.nullable(),
    click_id: z.string().nullable(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    promotion_code_id: z.string().nullable(),
    created_at: isoString,
    updated_at: isoString,
    partner: ExpandedPartner.optional(),
    program: ExpandedProgram.optional(),
    stats: CustomerStats.optional(),
  })
  .meta({ id: 'Customer' });
export type CustomerObject = z.output<typeof Customer>;

/** The customer as expanded on commissions and transactions. */
export const ExpandedCustomer = Customer.pick({ id: true, email: true, name: true, status: true, created_at: true }).meta({
  id: 'ExpandedCustomer',
});

/** Create and update responses also show the identifier (the Partnership Program API lists it for those only). */
export const CustomerWithIdentifier = Customer.extend({ identifier: z.string() }).meta({ id: 'CustomerWithIdentifier' });
export type CustomerWithIdentifierObject = z.output<typeof CustomerWithIdentifier>;

export const Warning = z.object({ code: z.literal('promotion_code_not_applied'), message: z.string() }).meta({ id: 'Warning' });
export type WarningObject = z.output<typeof Warning>;

export const CustomerWrite = z
  .object({ success: z.literal(true), data: z.array(CustomerWithIdentifier).length(1), warnings: z.array(Warning).optional() })
  .meta({ id: 'CustomerWriteResponse' });

export const CustomerList = z
  .object({ success: z.literal(true), data: z.object({ data: z.array(Customer) }), has_more: z.boolean(), total_count: z.number().int() })
  .meta({ id: 'CustomerList' });

export const CustomerExistsResponse = z
  .object({
    success: z.literal(false),
    error: z.object({ message: z.literal('Customer already exists'), type: z.literal('conflict_error') }),
    data: CustomerWithIdentifier,
  })
  .meta({ id: 'CustomerExists' });

/** The OpenAPI descriptions of the customer operations. */
export const customerDocs = {
  create:
    "Attributed by `partner_id` or `click_id` (both given must agree), or else by a partner's own active promotion code (`program_id` narrows that lookup when several programs have the code); nothing to attribute by → 400. A promotion code is applied only when it is active and belongs to the referring partner, their group or the program; otherwise the customer is still created and `warnings` holds `promotion_code_not_applied`. `identifier` defaults to `email`, then `customer_id`; one of the three is required. A taken identifier or customer_id in the program (compared case-insensitively) → 409 with the existing customer in `data`, decided by unique indexes, so simultaneous requests create one customer. The program's `signup` flows run in the same SQL transaction (as for a customer made by the script's signup), and the partner's customer e-mails are queued with it (see the partner's e-mail switches).",
  list: 'The customers of the program named by `program_id` (required), filtered by `partner_id`, `status` and `search`. As the spec says, the array is in `data.data`; `has_more` and `total_count` are beside `data`.',
  retrieve:
    '`include[]=stats` adds total_revenue (net of refunds), total_commission (not rejected or refunded, net of refund entries), total_orders (refunded ones included) and last_order_at (null without orders).',
  update:
    'The fields of the create body except `partner_id`, `program_id`, `identifier` and `created_at`: the referring partner never changes, and `click_id` must be a click of that partner. Changing `email` updates the address only, so the identifier the customer signed up with stays reserved for them. A promotion code that does not belong to the partner, their group or the program leaves the customer as it was and adds the `promotion_code_not_applied` warning.',
  delete: 'Soft delete: the customer is hidden and its identifier free again; its transactions and commissions remain.',
} as const;
