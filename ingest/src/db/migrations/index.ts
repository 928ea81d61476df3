import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_links_clicks.js';
import * as m0003 from './0003_customers_promotion_codes.js';
import * as m0004 from './0004_transactions_commissions.js';
import * as m0005 from './0005_lists_at_scale.js';
import * as m0006 from './0006_idempotency_keys.js';
import * as m0007 from './0007_stripe.js';
import * as m0008 from './0008_email_html.js';
import * as m0009 from './0009_events_webhooks.js';
import * as m0010 from './0010_payouts.js';
import * as m0011 from './0011_dashboard.js';
import * as m0012 from './0012_partner_portal.js';
import * as m0013 from './0013_refund_entries_in_payouts.js';
import * as m0014 from './0014_webhook_leases.js';
import * as m0015 from './0015_partners_awaiting_review.js';
import * as m0016 from './0016_program_branding.js';
import * as m0017 from './0017_risk.js';
import * as m0018 from './0018_click_visitor_index.js';
import * as m0019 from './0019_refund_figures.js';

/** Every migration, in order. Names sort in the order they must run. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_links_clicks': m0002,
  '0003_customers_promotion_codes': m0003,
  '0004_transactions_commissions': m0004,
  '0005_lists_at_scale': m0005,
  '0006_idempotency_keys': m0006,
  '0007_stripe': m0007,
  '0008_email_html': m0008,
  '0009_events_webhooks': m0009,
  '0010_payouts': m0010,
  '0011_dashboard': m0011,
  '0012_partner_portal': m0012,
  '0013_refund_entries_in_payouts': m0013,
  '0014_webhook_leases': m0014,
  '0015_partners_awaiting_review': m0015,
  '0016_program_branding': m0016,
  '0017_risk': m0017,
  '0018_click_visitor_index': m0018,
  '0019_refund_figures': m0019,
};
