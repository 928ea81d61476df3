/**
 * The keys each API object must have, written out once here rather than derived from the zod
 * schemas or the tables: the tests then check the API against the documented shape, so a field
 * that slips out of (or into) a schema, or a new column of a table, fails a test. The lists are
 * the field tables of the Partnership Program API (README.md#the-api-specification), which fixes
 * some sets exactly ("show only"); where it leaves a set open (the transaction), svc's own list
 * (ingest/docs/api.md#field-sets). Every test
 * compares exact key sets against them; `api/field-sets.test.ts` pins each operation of each
 * resource, with its expansions and includes.
 */

/** The fields of a partner object (expansions aside). */
export const PARTNER_FIELDS = [
  'id',
  'status',
  'first_name',
  'last_name',
  'email',
  'company_name',
  'program_id',
  'organization_id',
  'group_id',
  'payout_method',
  'payout_details',
  'country_code',
  'completed_onboarding',
  'rejection_note',
  'internal_note',
  'suspension_reason',
  'first_customer_email_active',
  'new_customer_email_active',
  'payout_paid_email_active',
  'created_at',
  'updated_at',
] as const;

/** The fields of a link object (expansions aside). */
export const LINK_FIELDS = ['id', 'param', 'value', 'partner_id', 'program_id', 'organization_id', 'created_at', 'updated_at'] as const;

/** The fields of a click object. */
export const CLICK_FIELDS = [
  'id',
  'partner_id',
  'link_id',
  'country',
  'state',
  'device',
  'page',
  'browser',
  'referrer',
  'program_id',
  'organization_id',
  'created_at',
  'updated_at',
] as const;

/** The fields of a customer object as list and retrieve show it (expansions aside). */
export const CUSTOMER_FIELDS = [
  'id',
  'customer_id',
  'email',
  'name',
  'status',
  'plan',
  'subscription_id',
  'lead_at',
  'active_at',
  'click_id',
  'partner_id',
  'program_id',
  'organization_id',
  'promotion_code_id',
  'created_at',
  'updated_at',
] as const;

/**
 * Create and update show the customer with its `identifier` too (the Partnership Program API:
 * "appears in create and update responses").
 */
export const CUSTOMER_WRITE_FIELDS = [...CUSTOMER_FIELDS, 'identifier'] as const;

/** What `include[]=stats` adds to a retrieved customer, as `stats`. */
export const CUSTOMER_STATS_FIELDS = ['total_revenue', 'total_commission', 'total_orders', 'last_order_at'] as const;

/**
 * The fields of a transaction object (expansions aside): svc's own set, as the Partnership Program
 * API leaves it open.
 */
export const TRANSACTION_FIELDS = [
  'id',
  'status',
  'amount',
  'refunded_amount',
  'currency',
  'customer_id',
  'partner_id',
  'program_id',
  'organization_id',
  'click_id',
  'charge_id',
  'billing_type',
  'interval',
  'product_id',
  'product_name',
  'source',
  'refunded_at',
  'created_at',
  'updated_at',
] as const;

/**
 * The commission fields list and retrieve show: the Partnership Program API's short set, exactly
 * ("show only").
 */
export const COMMISSION_SHORT_FIELDS = [
  'id',
  'amount',
  'customer_id',
  'transaction_id',
  'charge_id',
  'source',
  'status',
  'revenue',
  'created_at',
  'updated_at',
  'program_id',
  'organization_id',
] as const;

/**
 * The commission fields create and update show: the Partnership Program API's full set, exactly.
 */
export const COMMISSION_FULL_FIELDS = [
  'id',
  'amount',
  'revenue',
  'customer_id',
  'transaction_id',
  'charge_id',
  'charge_status',
  'source',
  'status',
  'type',
  'currency',
  'partner_id',
  'program_id',
  'organization_id',
  'payout_id',
  'scheduled_approval_date',
  'approval_type',
  'flow_id',
  'created_at',
  'updated_at',
] as const;

/**
 * What `include[]=rejection_reason` adds to a commission in either set: beyond the Partnership
 * Program API, so only on request.
 */
export const COMMISSION_INCLUDED_FIELDS = ['rejection_reason'] as const;

/** What `include[]=stats` adds to a partner, as `stats`. */
export const PARTNER_STATS_FIELDS = ['total_clicks', 'total_customers', 'total_revenue', 'total_commission'] as const;

/** An expanded partner (`expand[]=partner` on links, customers, promotion codes, commissions). */
export const EXPANDED_PARTNER_FIELDS = ['id', 'first_name', 'last_name', 'email', 'company_name', 'status', 'created_at'] as const;

/** An expanded program on those objects, and on a retrieved partner. */
export const EXPANDED_PROGRAM_FIELDS = [
  'id',
  'status',
  'name',
  'product_name',
  'subdomain',
  'type',
  'currency_code',
  'created_at',
] as const;

/** The program a partner list expands: the short set and the program's tracking settings. */
export const PARTNER_LIST_PROGRAM_FIELDS = [
  ...EXPANDED_PROGRAM_FIELDS,
  'cookie_duration',
  'payout_methods',
  'payout_term',
  'url_params',
] as const;

/** The group a partner expands. */
export const EXPANDED_GROUP_FIELDS = ['id', 'name', 'description', 'created_at', 'public_key', 'default'] as const;

/** An expanded customer (on commissions). */
export const EXPANDED_CUSTOMER_FIELDS = ['id', 'email', 'name', 'status', 'created_at'] as const;

/** An expanded transaction (on commissions). */
export const EXPANDED_TRANSACTION_FIELDS = ['id', 'amount', 'status', 'created_at'] as const;
