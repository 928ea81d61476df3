/**
 * The keys each API object must have, as the README's field tables list them, written out once
 * here rather than derived from the zod schemas: the tests then check the API against the
 * documented shape, so a field that slips out of (or into) a schema fails a test.
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

/** The fields of a customer object (expansions aside); create and update add `identifier`. */
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

/** The fields of a transaction object (expansions aside). */
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

/** The commission fields list and retrieve show (the short set). */
export const COMMISSION_SHORT_FIELDS = [
  'id',
  'amount',
  'customer_id',
  'transaction_id',
  'charge_id',
  'source',
  'status',
  'rejection_reason',
  'revenue',
  'created_at',
  'updated_at',
  'program_id',
  'organization_id',
] as const;

/** The commission fields create and update show (the full set). */
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
  'rejection_reason',
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
