import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  name: string | null;
  secret_hash: string;
  /** Last four characters of the secret, to tell keys apart in listings. */
  last4: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface ProgramsTable {
  id: string;
  organization_id: string;
  name: string;
  product_name: string;
  subdomain: string;
  type: string;
  status: string;
  currency_code: string;
  cookie_duration: number;
  url_params: Json<string[]>;
  payout_term: string;
  payout_methods: Json<string[]>;
  attribution_model: string;
  public_key: string;
  /** The least a payout of the program may be, in cents (migration 0010). */
  minimum_payout: Generated<number>;
  /**
   * Migration 0012 (ingest/docs/partner-portal.md): a portal sign-up starts active instead of
   * pending.
   */
  auto_approve_partners: Generated<boolean>;
  /** Shown on the portal's sign-up form, which must accept them when set. */
  partner_terms: string | null;
  /** The merchant's site: the base of the portal's link builder. */
  website_url: string | null;
  /** The rules' settings the program changed (migration 0017); the defaults are in resources/risk/risk-rules.ts. */
  risk_rules: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** The key of the program's visitor fingerprints (migration 0017); never shown. */
  risk_salt: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GroupsTable {
  id: string;
  organization_id: string;
  program_id: string;
  name: string;
  description: string | null;
  is_default: boolean;
  public_key: string;
  /** The group's own payout minimum in cents; null: the program's. */
  minimum_payout: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface FlowsTable {
  id: string;
  organization_id: string;
  program_id: string;
  group_id: string | null;
  name: string;
  trigger: string;
  conditions: Json<unknown[]>;
  reward: Json<Record<string, unknown>>;
  approval: Json<Record<string, unknown>>;
  active: boolean;
  is_default: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface PartnersTable {
  id: string;
  organization_id: string;
  program_id: string;
  group_id: string;
  status: string;
  first_name: string;
  last_name: string;
  email: string;
  company_name: string | null;
  country_code: string | null;
  payout_method: string;
  payout_details: Json<Record<string, string>>;
  completed_onboarding: boolean;
  rejection_note: string | null;
  internal_note: string | null;
  suspension_reason: string | null;
  first_customer_email_active: boolean;
  new_customer_email_active: boolean;
  payout_paid_email_active: boolean;
  /** The payout account, normalised, for the shared payout account rule (migration 0017); written by the partners service. */
  payout_account: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface EmailOutboxTable {
  id: string;
  organization_id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  /**
   * A simple HTML alternative of the text; null for text-only messages. A message with a
   * `program_id` is queued with it in svc's colors; once sent, it holds what was sent, in the
   * program's brand (migration 0016).
   */
  html_body: string | null;
  /** The program whose brand the HTML wears (migration 0016); null for messages queued before it. */
  program_id: string | null;
  attempts: Generated<number>;
  last_error: string | null;
  next_attempt_at: Timestamp;
  sent_at: Timestamp | null;
  created_at: Timestamp;
}

export interface LinksTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  param: string;
  value: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface ClicksTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  link_id: string | null;
  country: string | null;
  state: string | null;
  device: string | null;
  page: string | null;
  browser: string | null;
  referrer: string | null;
  /** The fingerprint of the browser that made it through the script (migration 0017); null for a server's click. */
  visitor_hash: string | null;
  /** The names of the ad click parameters its landing URL carried (migration 0017). */
  ad_click_ids: string[] | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PromotionCodesTable {
  id: string;
  organization_id: string;
  program_id: string;
  code: string;
  type: string;
  value: number;
  partner_id: string | null;
  group_id: string | null;
  active: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface CustomersTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  identifier: string;
  email: string | null;
  name: string | null;
  customer_id: string | null;
  subscription_id: string | null;
  click_id: string | null;
  promotion_code_id: string | null;
  status: string;
  plan: string | null;
  lead_at: Timestamp;
  active_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface TransactionsTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  customer_id: string;
  click_id: string | null;
  charge_id: string | null;
  status: string;
  amount: number;
  refunded_amount: number;
  currency: string;
  billing_type: string;
  interval: string | null;
  product_id: string | null;
  product_name: string | null;
  source: string | null;
  refunded_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface CommissionsTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  customer_id: string | null;
  transaction_id: string | null;
  flow_id: string | null;
  /** The reward commission a refund entry offsets. */
  refund_of: string | null;
  type: string;
  status: string;
  /** A refund entry that left the totals with its reward: the status it gets back with it. */
  status_before_void: string | null;
  /** Why the merchant rejected it, shown to the partner; only a rejected commission has one (migration 0012). */
  rejection_reason: string | null;
  amount: number;
  revenue: number | null;
  currency: string | null;
  charge_id: string | null;
  charge_status: string | null;
  source: string | null;
  approval_type: string;
  scheduled_approval_date: Timestamp | null;
  payout_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** A payment to a partner of the approved commissions it groups (ingest/docs/payouts.md). */
export interface PayoutsTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  status: string;
  amount: number;
  currency: string;
  payout_method: string;
  /** The partner's payout details when the payout was made. */
  payout_details: Json<Record<string, string>>;
  commission_count: number;
  /** When its oldest and newest commissions were made. */
  period_start: Timestamp;
  period_end: Timestamp;
  /** The merchant's reference of the payment (PayPal, Wise, bank). */
  reference: string | null;
  /** Why it failed or was canceled. */
  reason: string | null;
  paid_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The commissions of each unpaid payout (migration 0010): one row per commission, so in one payout at most. */
export interface PayoutCommissionsTable {
  commission_id: string;
  payout_id: string;
}

/** Trigger-kept counters behind partner stats, split into shards (summed when read). */
export interface PartnerStatsTable {
  partner_id: string;
  shard: number;
  clicks: number;
  customers: number;
  revenue: number;
  commission: number;
}

/** Trigger-kept live row counts of the counted lists, per program, in shards (summed when read). */
export interface ListCountsTable {
  program_id: string;
  shard: number;
  customers: number;
  transactions: number;
  commissions: number;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  /** SHA-256 of the client's key: the key itself may be anything the client chose. */
  key_hash: string;
  /** SHA-256 of the method, path and canonical body the key was first used with. */
  fingerprint: string;
  response_status: number;
  response_body: Json<unknown>;
  created_at: Timestamp;
}

/** A program's Stripe connection (ingest/docs/stripe.md). */
export interface StripeIntegrationsTable {
  program_id: string;
  organization_id: string;
  /** The `whsec_…` of the merchant's Stripe webhook endpoint; never returned by the API. */
  webhook_secret: string;
  tax_counts_as_revenue: boolean;
  connected_at: Timestamp;
  updated_at: Timestamp;
}

/** Every Stripe event received, once per event id. */
export interface StripeEventsTable {
  program_id: string;
  event_id: string;
  organization_id: string;
  type: string;
  livemode: boolean;
  api_version: string | null;
  stripe_created_at: Timestamp;
  status: string;
  reason: string | null;
  message: string | null;
  customer_id: string | null;
  transaction_id: string | null;
  /** Stripe ids whose link makes this event run again. */
  waiting_for: string[] | null;
  /** The event as received, kept only while it waits. */
  payload: Json<unknown> | null;
  attempts: number;
  received_at: Timestamp;
  updated_at: Timestamp;
}

/** A Stripe id and the svc record it stands for. */
export interface StripeLinksTable {
  program_id: string;
  stripe_id: string;
  kind: string;
  target: string;
  created_at: Timestamp;
}

/**
 * The events outbox (migration 0009): one row per change of an API object, written by triggers
 * in the changing statement; `snapshot` is the row after the change, `previous_snapshot` before.
 */
export interface EventsTable {
  id: string;
  seq: Generated<number>;
  organization_id: string;
  program_id: string | null;
  type: string;
  object_id: string | null;
  snapshot: Json<Record<string, unknown>>;
  previous_snapshot: Json<Record<string, unknown>> | null;
  created_at: Timestamp;
  /** When the delivery worker fanned the event out to the endpoints that want it. */
  dispatched_at: Timestamp | null;
}

/** A merchant's webhook receiver (ingest/docs/webhooks.md). */
export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  /** Only this program's events; null for every program of the organization. */
  program_id: string | null;
  url: string;
  description: string | null;
  /** Event types, `resource.*` or `*`. */
  event_types: string[];
  enabled: boolean;
  /** The `whsec_…` signing secret; returned by the API only when made. */
  secret: string;
  /** The secret before the last rotation, still signing until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  /** Since when every attempt has failed; null after a success. */
  failing_since: Timestamp | null;
  disabled_at: Timestamp | null;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** One attempt to deliver an event to an endpoint, as kept in `webhook_deliveries.attempts`. */
export interface DeliveryAttempt {
  attempt: number;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

/** One event sent (or to be sent) to one endpoint. */
export interface WebhookDeliveriesTable {
  id: string;
  seq: Generated<number>;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  /** When the next attempt is due; null once succeeded or failed. */
  next_attempt_at: Timestamp | null;
  /** Until when the process that claimed the delivery holds it (it renews that while it works); null when none does. */
  leased_until: Timestamp | null;
  attempts: Json<DeliveryAttempt[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A person who signs in to the dashboard (ingest/docs/dashboard.md). */
export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  name: string | null;
  role: 'owner' | 'member';
  password_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** A dashboard sign-in; `id` is the SHA-256 of the cookie's token. */
export interface SessionsTable {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export const PARTNER_SESSION_KINDS = ['cookie', 'embed'] as const;

/** A partner signed in to the portal; `id` is the SHA-256 of the token (a cookie's, or an embed token in a URL). */
export interface PartnerSessionsTable {
  id: string;
  partner_id: string;
  kind: (typeof PARTNER_SESSION_KINDS)[number];
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** A one-time sign-in link of the portal; `id` is the SHA-256 of its token. */
export interface PartnerSignInLinksTable {
  id: string;
  partner_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/**
 * A program's logo and accent color (migration 0016, ingest/docs/partner-portal.md#the-programs-logo-and-accent-color):
 * beside the program, never in its API object. The logo's columns are all set or all null.
 */
export interface ProgramBrandingTable {
  program_id: string;
  logo: Uint8Array | null;
  logo_type: string | null;
  /** Hex SHA-256 of the logo: its URL carries it, so a new logo is a new URL. */
  logo_sha256: string | null;
  logo_size: number | null;
  logo_width: number | null;
  logo_height: number | null;
  /** `#rrggbb`, lower case. */
  accent_color: string | null;
  updated_at: Timestamp;
}

/** Trigger-kept figures per program, UTC day, partner and currency ('' for counts), in shards (summed when read). */
export interface DailyStatsTable {
  program_id: string;
  day: ColumnType<string, string, string>;
  partner_id: string;
  currency: string;
  shard: number;
  clicks: number;
  leads: number;
  customers: number;
  revenue: number;
  commission: number;
  /** Live transactions, and their refunded amount (migration 0019: the refund rate rule). */
  payments: number;
  refunded: number;
}

/** A fingerprint a partner's portal session came from (migration 0017). */
export interface PartnerBrowsersTable {
  partner_id: string;
  visitor_hash: string;
  program_id: string;
  last_seen_at: Timestamp;
}

/** One flag of a risk rule (migration 0017, ingest/docs/risk.md). */
export interface RiskEventsTable {
  id: string;
  organization_id: string;
  program_id: string;
  partner_id: string;
  rule: string;
  status: 'open' | 'resolved';
  /** Which commissions it holds while open: its customer's, its fingerprint's customers', or all of its partner's. */
  holds: 'customer' | 'visitor' | 'partner';
  click_id: string | null;
  customer_id: string | null;
  transaction_id: string | null;
  other_partner_id: string | null;
  visitor_hash: string | null;
  evidence: Json<Record<string, unknown>>;
  dedupe_key: string;
  resolution: string | null;
  resolution_reason: string | null;
  resolved_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** How far the windowed risk rules have checked a program's clicks (migration 0017). */
export interface RiskChecksTable {
  program_id: string;
  clicks_checked_until: Timestamp;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  programs: ProgramsTable;
  partner_browsers: PartnerBrowsersTable;
  risk_events: RiskEventsTable;
  risk_checks: RiskChecksTable;
  groups: GroupsTable;
  flows: FlowsTable;
  partners: PartnersTable;
  email_outbox: EmailOutboxTable;
  links: LinksTable;
  clicks: ClicksTable;
  promotion_codes: PromotionCodesTable;
  customers: CustomersTable;
  transactions: TransactionsTable;
  commissions: CommissionsTable;
  partner_stats: PartnerStatsTable;
  list_counts: ListCountsTable;
  idempotency_keys: IdempotencyKeysTable;
  stripe_integrations: StripeIntegrationsTable;
  stripe_events: StripeEventsTable;
  stripe_links: StripeLinksTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  payouts: PayoutsTable;
  payout_commissions: PayoutCommissionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  daily_stats: DailyStatsTable;
  partner_sessions: PartnerSessionsTable;
  partner_sign_in_links: PartnerSignInLinksTable;
  program_branding: ProgramBrandingTable;
}

export type ProgramRow = Selectable<ProgramsTable>;
export type GroupRow = Selectable<GroupsTable>;
export type PartnerRow = Selectable<PartnersTable>;
export type FlowRow = Selectable<FlowsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewPartner = Insertable<PartnersTable>;
export type PartnerUpdate = Updateable<PartnersTable>;
export type LinkRow = Selectable<LinksTable>;
export type ClickRow = Selectable<ClicksTable>;
export type PromotionCodeRow = Selectable<PromotionCodesTable>;
export type CustomerRow = Selectable<CustomersTable>;
export type TransactionRow = Selectable<TransactionsTable>;
export type NewTransaction = Insertable<TransactionsTable>;
export type CommissionRow = Selectable<CommissionsTable>;
export type NewCommission = Insertable<CommissionsTable>;
export type StripeIntegrationRow = Selectable<StripeIntegrationsTable>;
export type StripeEventRow = Selectable<StripeEventsTable>;
export type EventRow = Selectable<EventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type PayoutRow = Selectable<PayoutsTable>;
export type UserRow = Selectable<UsersTable>;
export type RiskEventRow = Selectable<RiskEventsTable>;
