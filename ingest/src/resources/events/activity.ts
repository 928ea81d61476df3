import type { Db } from '../../db/database.js';
import type { CommissionRow, CustomerRow, EventRow, LinkRow, PartnerRow, PayoutRow, TransactionRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import { formatMoney } from '../../money.js';
import { partnerName } from '../partners/partner-name.js';
import { selectNamedCustomers, selectNamedPartners, selectTransactionsDeleted } from './activity.repository.js';
import { resourceOf, TEST_EVENT_TYPE } from './event-types.js';
import { selectRecentEvents } from './events.repository.js';
import { toEvent } from './events.serializer.js';

/**
 * A program's recent events as lines for people (the dashboard overview's "Recent activity",
 * ingest/docs/dashboard.md#recent-activity): who (the partner, and the customer where there is
 * one, by name) and what changed, in words, with the path of the record's page.
 */
export interface ActivityLine {
  /** The event's id. */
  id: string;
  /** The event's type, e.g. `transaction.refunded`. */
  type: string;
  /** When it happened (ISO 8601). */
  at: string;
  /** What happened, e.g. "Refund of $10.00 on Emma Stone's customer ana@x.com's $100.00 payment". */
  text: string;
  /**
   * The dashboard page of the record, within the program's pages (`/transactions/txn_…`, for
   * `programPath(program, path)`); absent where the record has none, or is deleted.
   */
  path?: string;
}

/** The program whose activity is read: its currency names amounts that carry none. */
export interface ActivityProgram {
  id: string;
  organization_id: string;
  currency_code: string;
}

/** The program's latest `limit` events, newest first, as lines; the names they need in one query per table. */
export async function recentActivity(db: Db, program: ActivityProgram, limit: number): Promise<ActivityLine[]> {
  const events = await selectRecentEvents(db, program.organization_id, program.id, limit);
  const names = await loadNames(db, program.organization_id, events);
  return events.map((event) => describeEvent(event, names, program.currency_code));
}

type Snapshot = Record<string, unknown>;

/** Who the lines name, loaded for a page of events; a record not found (another organization's) is unnamed. */
export interface ActivityNames {
  partners: Map<string, { name: string; live: boolean }>;
  customers: Map<string, { name: string; live: boolean }>;
  liveTransactions: Set<string>;
}

/** How a customer is named in a line: their name, else e-mail, else the identifier they were recorded with. */
export const customerName = (c: { name: string | null; email: string | null; identifier: string }) => c.name || c.email || c.identifier;

async function loadNames(db: Db, organizationId: string, events: EventRow[]): Promise<ActivityNames> {
  const ids = { partners: new Set<string>(), customers: new Set<string>(), transactions: new Set<string>() };
  for (const event of events) {
    const s = event.snapshot as Snapshot;
    const resource = resourceOf(event.type);
    if (resource === 'partner') ids.partners.add(String(s.id));
    if (resource === 'customer') ids.customers.add(String(s.id));
    if (resource === 'transaction') ids.transactions.add(String(s.id));
    if (typeof s.partner_id === 'string') ids.partners.add(s.partner_id);
    if (typeof s.customer_id === 'string') ids.customers.add(s.customer_id);
    if (typeof s.transaction_id === 'string') ids.transactions.add(s.transaction_id);
  }
  const some = <T>(set: Set<string>, load: (ids: string[]) => Promise<T[]>) => (set.size > 0 ? load([...set]) : Promise.resolve([]));
  const [partners, customers, transactions] = await Promise.all([
    some(ids.partners, (list) => selectNamedPartners(db, organizationId, list)),
    some(ids.customers, (list) => selectNamedCustomers(db, organizationId, list)),
    some(ids.transactions, (list) => selectTransactionsDeleted(db, organizationId, list)),
  ]);
  return {
    partners: new Map(partners.map((p) => [p.id, { name: partnerName(p), live: p.deleted_at === null }])),
    customers: new Map(customers.map((c) => [c.id, { name: customerName(c), live: c.deleted_at === null }])),
    liveTransactions: new Set(transactions.filter((t) => t.deleted_at === null).map((t) => t.id)),
  };
}

/** One event as a line (pure: the names come loaded). */
export function describeEvent(event: EventRow, names: ActivityNames, programCurrency: string): ActivityLine {
  const line = { id: event.id, type: event.type, at: toIso(event.created_at) };
  const action = event.type.slice(event.type.indexOf('.') + 1);
  const change: Change = { action, after: event.snapshot as Snapshot, before: (event.previous_snapshot ?? {}) as Snapshot, event };
  const say = new Lines(names, programCurrency);
  switch (resourceOf(event.type)) {
    case 'partner':
      return { ...line, ...say.partner(change as Change<PartnerRow>) };
    case 'link':
      return { ...line, ...say.link(change as Change<LinkRow>) };
    case 'customer':
      return { ...line, ...say.customer(change as Change<CustomerRow>) };
    case 'transaction':
      return { ...line, ...say.transaction(change as Change<TransactionRow>) };
    case 'commission':
      return { ...line, ...say.commission(change as Change<CommissionRow>) };
    case 'payout':
      return { ...line, ...say.payout(change as Change<PayoutRow>) };
    default:
      return { ...line, text: event.type === TEST_EVENT_TYPE ? 'Test event sent to a webhook endpoint' : event.type };
  }
}

/** An event's record after and before the change, as SQL snapshotted it (migration 0009). */
interface Change<Row = Snapshot> {
  action: string;
  after: Row;
  before: Partial<Row>;
  event: EventRow;
}

type Said = { text: string; path?: string };

/** The words for each resource's events. */
class Lines {
  constructor(
    private readonly names: ActivityNames,
    private readonly currency: string,
  ) {}

  partner({ action, after, before, event }: Change<PartnerRow>): Said {
    const who = this.names.partners.get(after.id)?.name ?? partnerName(after);
    const text =
      action === 'created'
        ? `New partner ${who}${after.status === 'pending' ? ', awaiting review' : after.status === 'active' ? '' : ` (${after.status})`}`
        : action === 'deleted'
          ? `Partner ${who} deleted`
          : before.status !== after.status
            ? `Partner ${who} is now ${after.status} (was ${before.status})`
            : `Partner ${who} changed: ${changedFields(event)}`;
    return { text, path: this.partnerPath(after.id) };
  }

  link({ action, after, before }: Change<LinkRow>): Said {
    const key = linkKey(after);
    const who = this.partnerCalled(after.partner_id);
    const text =
      action === 'created'
        ? `Link ${key} created for ${who}`
        : action === 'deleted'
          ? `Link ${key} of ${who} deleted`
          : before.partner_id !== undefined && before.partner_id !== after.partner_id
            ? `Link ${key} moved from ${this.partnerCalled(before.partner_id)} to ${who}`
            : `Link ${key} of ${who} changed (was ${linkKey({ param: before.param ?? after.param, value: before.value ?? after.value })})`;
    return { text, path: this.partnerPath(after.partner_id) };
  }

  customer({ action, after, before, event }: Change<CustomerRow>): Said {
    const customer = this.customerCalled(after.id, after);
    const whose = `${this.partnerCalled(after.partner_id)}'s customer ${customer}`;
    const text =
      action === 'created'
        ? `New ${after.status === 'lead' ? 'lead' : `customer (${after.status})`} ${customer}, referred by ${this.partnerCalled(after.partner_id)}`
        : action === 'deleted'
          ? `${cap(whose)} deleted`
          : before.status !== after.status
            ? `${cap(whose)} is now ${after.status} (was ${before.status})`
            : `${cap(whose)} changed: ${changedFields(event)}`;
    return { text, path: this.names.customers.get(after.id)?.live ? `/customers/${after.id}` : undefined };
  }

  transaction({ action, after, before, event }: Change<TransactionRow>): Said {
    const money = (minor: number) => formatMoney(minor, after.currency);
    const customer = `${this.partnerCalled(after.partner_id)}'s customer ${this.customerCalled(after.customer_id)}`;
    const payment = `${customer}'s ${money(after.amount)} payment`;
    let text: string;
    if (action === 'created') text = `Payment of ${money(after.amount)} from ${customer}`;
    else if (action === 'refunded') {
      const refunded = after.refunded_amount - (before.refunded_amount ?? 0);
      const inAll = after.refunded_amount !== refunded ? `, ${money(after.refunded_amount)} refunded in all` : '';
      text = `Refund of ${money(refunded)} on ${payment}${inAll}`;
    } else if (action === 'deleted') text = `${cap(payment)} deleted`;
    else if (before.status !== after.status) text = `${cap(payment)} is now ${words(after.status)} (was ${words(String(before.status))})`;
    else text = `${cap(payment)} changed: ${changedFields(event)}`;
    return { text, path: this.transactionPath(after.id) };
  }

  commission({ action, after, before, event }: Change<CommissionRow>): Said {
    const amount = formatMoney(after.amount, after.currency ?? this.currency);
    const who = this.partnerCalled(after.partner_id);
    const onCustomer = after.customer_id ? `, customer ${this.customerCalled(after.customer_id)}` : '';
    const kind = after.type === 'refund' ? 'commission refund entry' : 'commission';
    const theirs = `${who}'s ${amount} ${kind}`;
    const text =
      action === 'created'
        ? `${cap(kind)} of ${amount} for ${who} (${after.status})${onCustomer}`
        : action === 'deleted'
          ? `${cap(theirs)} deleted`
          : before.status !== after.status
            ? `${cap(theirs)} is now ${after.status} (was ${before.status})`
            : `${cap(theirs)} changed: ${changedFields(event)}`;
    // A commission has no page of its own: its payment's page lists it, else its partner's.
    const path = (after.transaction_id && this.transactionPath(after.transaction_id)) || this.partnerPath(after.partner_id);
    return { text, path };
  }

  payout({ action, after, before, event }: Change<PayoutRow>): Said {
    const payout = `Payout of ${formatMoney(after.amount, after.currency)} to ${this.partnerCalled(after.partner_id)}`;
    const text =
      action === 'created'
        ? `${payout} created (${after.status})`
        : action !== 'updated'
          ? `${payout} ${action}`
          : before.status !== after.status
            ? `${payout} is now ${after.status} (was ${before.status})`
            : `${payout} changed: ${changedFields(event)}`;
    return { text, path: `/payouts/${after.id}` };
  }

  /** The partner's name now; "a partner" for one not found. */
  private partnerCalled(id: string | undefined): string {
    return (id && this.names.partners.get(id)?.name) || 'a partner';
  }

  /** The customer's name now, else as the event recorded them; "a customer" for one not found. */
  private customerCalled(id: string, recorded?: CustomerRow): string {
    return this.names.customers.get(id)?.name ?? (recorded ? customerName(recorded) : 'a customer');
  }

  private partnerPath(id: string): string | undefined {
    return this.names.partners.get(id)?.live ? `/partners/${id}` : undefined;
  }

  private transactionPath(id: string): string | undefined {
    return this.names.liveTransactions.has(id) ? `/transactions/${id}` : undefined;
  }
}

/** A link as people share it: `?ref=emma`. */
const linkKey = (l: { param: string; value: string }) => `?${l.param}=${l.value}`;

const cap = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;

const words = (status: string) => status.replaceAll('_', ' ');

/** The API fields an update changed, in words ("email, last name"), as its event's `previous_attributes` names them. */
function changedFields(event: EventRow): string {
  const fields = Object.keys(toEvent(event).previous_attributes ?? {});
  return fields.length > 0 ? fields.map((f) => words(f.replace(/_id$/, ''))).join(', ') : 'details';
}
