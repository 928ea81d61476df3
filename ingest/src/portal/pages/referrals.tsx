import type { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../http/errors.js';
import { idField } from '../../http/fields.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Figure, Figures } from '../../pages/figures.js';
import { count, day, moneyList } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { RecordId } from '../../pages/record-id.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { listCommissions, type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import type { CustomerObject } from '../../resources/customers/customers.schema.js';
import { customerRevenues, listCustomers } from '../../resources/customers/customers.service.js';
import { maskEmail } from '../../resources/partners/partner-emails.js';
import { payoutMethodProblem } from '../../resources/payouts/payout-readiness.js';
import type { PayoutObject } from '../../resources/payouts/payouts.schema.js';
import {
  listPayoutCommissions,
  listPayouts,
  type NextPayout,
  nextPayoutOf,
  retrievePayout,
} from '../../resources/payouts/payouts.service.js';
import { notFoundPage, type PortalContext, type PortalContextOf } from '../context.js';
import { PortalLayout } from '../layout.js';
import { NextPayoutLine } from '../next-payout.js';
import { detailLabel, payoutLabel } from '../partner-fields.js';
import { UnderReviewNote } from '../under-review.js';

/**
 * The partner's referrals (ingest/docs/partner-portal.md): what they are owed next, their customers
 * (e-mails masked: a partner learns that someone signed up, not who), their commissions and
 * their payouts, each payout with a page of its own. Every list is read through the services
 * with the signed-in partner as its filter, so no other partner's record can show; a payout id
 * that is not theirs is the portal's 404, the same as one that does not exist.
 */

export const referralsNotices: Record<string, string> = {};

const PAGE_SIZE = 10;
const PAYOUT_PAGE_SIZE = 50;

/** The three lists page on their own: `customers_after`, `commissions_before` … (the API's cursors: an id of the list). */
const LISTS = ['customers', 'commissions', 'payouts'] as const;
type ListName = (typeof LISTS)[number];
const cursorFields = LISTS.flatMap((l) => [`${l}_after`, `${l}_before`]);
const ReferralsQuery = z.strictObject(Object.fromEntries(cursorFields.map((f) => [f, idField.optional()])));
const PageCursor = z.strictObject({ starting_after: listParams.starting_after, ending_before: listParams.ending_before });

/** A partner's commission as these pages show it: in its own currency, with its rejection reason, its customer, and whether its payment was deleted since. */
type PartnerCommission = ShownCommission & { withdrawn?: boolean };

export function registerReferralsPages(router: Router, { db }: AppDeps, contextOf: PortalContextOf): void {
  router.get('/referrals', async (req, res) => {
    const ctx = contextOf(res, 'referrals');
    const { program, partner } = ctx;
    const org = program.organization_id;
    const query = fromFields(ReferralsQuery, req.query, cursorFields, 'query') as Record<string, string | undefined>;
    const cursors = Object.fromEntries(LISTS.map((l) => [l, cursorOf(query, l)])) as Record<ListName, Cursor>;
    const scope = { program_id: program.id, partner_id: partner.id, limit: PAGE_SIZE };
    const [customers, commissions, payouts, next] = await Promise.all([
      listCustomers(db, org, { ...scope, ...cursors.customers }),
      listCommissions(db, org, { ...scope, ...cursors.commissions, expand: ['customer', 'transaction'] })
        .then((page) => withStoredFields(db, page))
        // A payment deleted since: its commissions were rejected for that
        // (ingest/docs/commissions.md#refunds).
        .then((page) => ({ ...page, rows: page.rows.map((c) => ({ ...c, withdrawn: Boolean(c.transaction_id && !c.transaction) })) })),
      listPayouts(db, org, { ...scope, ...cursors.payouts }),
      nextPayoutOf(db, org, partner),
    ]);
    const revenues = await customerRevenues(
      db,
      org,
      customers.rows.map((c) => c.id),
    );
    sendPage(
      res,
      <ReferralsPage
        ctx={ctx}
        customers={customers}
        revenues={revenues}
        commissions={commissions}
        payouts={payouts}
        next={next}
        cursors={cursors}
      />,
    );
  });

  router.get('/payouts/:payoutId', async (req, res) => {
    const ctx = contextOf(res, 'referrals');
    const org = ctx.program.organization_id;
    const payout = await partnerPayout(ctx, String(req.params.payoutId));
    const cursor = fromFields(PageCursor, req.query, ['starting_after', 'ending_before'], 'query');
    const commissions = await withStoredFields(
      db,
      await listPayoutCommissions(db, org, payout.id, { ...cursor, limit: PAYOUT_PAGE_SIZE }, ['customer']),
    );
    sendPage(res, <PayoutPage ctx={ctx} payout={payout} commissions={commissions} cursor={cursor} />);
  });

  /** The signed-in partner's payout; any other id (unknown, another partner's, another organization's) is the portal's 404. */
  async function partnerPayout(ctx: PortalContext, id: string): Promise<PayoutObject> {
    const payout = await retrievePayout(db, ctx.program.organization_id, id).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) throw notFoundPage();
      throw err;
    });
    if (payout.partner_id !== ctx.partner.id || payout.program_id !== ctx.program.id) throw notFoundPage();
    return payout;
  }
}

function cursorOf(query: Record<string, string | undefined>, list: ListName): Cursor {
  const after = query[`${list}_after`];
  const before = query[`${list}_before`];
  return after ? { starting_after: after } : before ? { ending_before: before } : {};
}

/** A customer as a partner may see them: the e-mail masked (j•••@example.com), else the masked id the merchant gave. */
function customerLabel(customer: { email: string | null; customer_id?: string | null } | undefined): string {
  if (!customer) return '—';
  const shown = customer.email ?? customer.customer_id;
  return shown ? maskEmail(shown) : 'A customer';
}

/** A customer's revenue in each currency, the program's first ("$100.00 · €5.00"). */
function revenueText(amounts: Record<string, number>, currency: string): string {
  const { [currency]: own, ...others } = amounts;
  return moneyList(own === undefined ? others : { [currency]: own, ...others }, currency);
}

/** Why a commission is where it is, where its status alone does not say (a rejection, with the merchant's reason when given; a refund). */
function commissionNote(c: PartnerCommission, program: PortalContext['program']): string | null {
  if (c.status === 'rejected') {
    if (c.rejection_reason) return `Not approved by the ${program.name} team: ${c.rejection_reason}`;
    return c.withdrawn ? 'Not paid: the payment was withdrawn, so it earns no commission.' : `Not approved by the ${program.name} team.`;
  }
  if (c.status === 'refunded') return "Not paid: the customer's payment was refunded.";
  if (c.amount < 0) return 'A refund: takes back part of an earlier commission, from your next payout.';
  if (c.status === 'pending') return 'Waiting for approval.';
  return null;
}

/** A day in a table: ISO, as every date of the pages, kept on one line (a phone would break it at its dashes). */
const DayCell = ({ at }: { at: string }) => <time datetime={day(at)}>{day(at)}</time>;

/** Whether a list is at its start (no cursor): only there does an empty list mean the partner has none. */
const atStart = (cursor: Cursor) => !cursor.starting_after && !cursor.ending_before;

/** Newer / older links of one list of the page, keeping the page's place in nothing else (the other lists start over). */
function ListPager({ ctx, list, page, cursor }: { ctx: PortalContext; list: ListName; page: Page<{ id: string }>; cursor: Cursor }) {
  const rows = page.rows;
  const backwards = cursor.ending_before !== undefined;
  const newer = rows.length > 0 && (backwards ? page.has_more : cursor.starting_after !== undefined);
  const older = rows.length > 0 && (backwards || page.has_more);
  if (!newer && !older) return null;
  const href = (param: 'after' | 'before', id: string) =>
    `${ctx.base}/referrals?${new URLSearchParams({ [`${list}_${param}`]: id })}#${list}`;
  return (
    <nav class="pager" aria-label={`Pages of your ${list}`}>
      <span>{count(page.total_count)} in all</span>
      {newer ? <a href={href('before', rows[0].id)}>← Newer</a> : null}
      {older ? <a href={href('after', rows[rows.length - 1].id)}>Older →</a> : null}
    </nav>
  );
}

function ReferralsPage(props: {
  ctx: PortalContext;
  customers: Page<CustomerObject>;
  revenues: Map<string, Record<string, number>>;
  commissions: Page<PartnerCommission>;
  payouts: Page<PayoutObject>;
  next: NextPayout;
  cursors: Record<ListName, Cursor>;
}) {
  const { ctx, customers, revenues, commissions, payouts, next, cursors } = props;
  const { program } = ctx;
  return (
    <PortalLayout ctx={ctx} title="Referrals">
      <h1>Referrals</h1>
      <NextPayoutSection ctx={ctx} next={next} />

      <section aria-labelledby="customers-title" id="customers">
        <h2 id="customers-title">Customers</h2>
        <DataTable
          caption="Customers you referred, newest first"
          rows={customers.rows}
          empty={
            atStart(cursors.customers) ? (
              <>
                No customers yet: share your link from <a href={`${ctx.base}/`}>Home</a>. Someone who signs up for {program.product_name}{' '}
                within {program.cookie_duration} days of following it shows here.
              </>
            ) : (
              'No more customers this way.'
            )
          }
          columns={[
            { head: 'Customer', cell: (c) => customerLabel(c) },
            { head: 'Signed up', cell: (c) => <DayCell at={c.lead_at} /> },
            { head: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
            { head: 'Revenue', numeric: true, cell: (c) => revenueText(revenues.get(c.id) ?? {}, program.currency_code) },
          ]}
        />
        <ListPager ctx={ctx} list="customers" page={customers} cursor={cursors.customers} />
      </section>

      <section aria-labelledby="commissions-title" id="commissions">
        <h2 id="commissions-title">Commissions</h2>
        <UnderReviewNote amounts={next.balance?.amounts ?? []} currency={program.currency_code} />
        <CommissionsTable
          ctx={ctx}
          caption="Your commissions, newest first"
          rows={commissions.rows}
          empty={
            atStart(cursors.commissions)
              ? 'No commissions yet: you earn one when a customer you referred pays.'
              : 'No more commissions this way.'
          }
        />
        <ListPager ctx={ctx} list="commissions" page={commissions} cursor={cursors.commissions} />
      </section>

      <section aria-labelledby="payouts-title" id="payouts">
        <h2 id="payouts-title">Payouts</h2>
        <DataTable
          caption="Your payouts, newest first"
          rows={payouts.rows}
          empty={
            atStart(cursors.payouts)
              ? 'No payouts yet: approved commissions are paid out together, once they reach the minimum.'
              : 'No more payouts this way.'
          }
          columns={[
            {
              head: 'Made',
              cell: (p) => (
                <a href={`${ctx.base}/payouts/${p.id}`}>
                  <DayCell at={p.created_at} />
                </a>
              ),
            },
            { head: 'Commissions', numeric: true, cell: (p) => count(p.commission_count) },
            {
              head: 'Status',
              cell: (p) => (
                <>
                  <StatusBadge status={p.status} />
                  {p.paid_at ? <span class="sub">{`paid ${day(p.paid_at)}`}</span> : null}
                </>
              ),
            },
            { head: 'Reference', cell: (p) => p.reference ?? <span class="muted">—</span> },
            { head: 'Amount', numeric: true, cell: (p) => formatMoney(p.amount, p.currency) },
          ]}
        />
        <ListPager ctx={ctx} list="payouts" page={payouts} cursor={cursors.payouts} />
      </section>
    </PortalLayout>
  );
}

/** Commissions (the partner's, or a payout's): the customer (masked) and day, the status and, where it alone does not say, why; the amount. */
function CommissionsTable({
  ctx,
  caption,
  rows,
  empty,
}: {
  ctx: PortalContext;
  caption: string;
  rows: PartnerCommission[];
  empty: string;
}) {
  const { program } = ctx;
  return (
    <DataTable
      caption={caption}
      rows={rows}
      empty={empty}
      columns={[
        { head: 'Customer', cell: (c) => (c.customer_id ? customerLabel(c.customer ?? { email: null }) : 'No customer') },
        { head: 'Earned', cell: (c) => <DayCell at={c.created_at} /> },
        {
          head: 'Status',
          cell: (c) => {
            const note = commissionNote(c, program);
            return (
              <>
                <StatusBadge status={c.status} />
                {note ? <span class="sub">{note}</span> : null}
              </>
            );
          },
        },
        { head: 'Amount', numeric: true, cell: (c) => formatMoney(c.amount, c.currency || program.currency_code) },
      ]}
    />
  );
}

/**
 * What the next payout would pay, per currency: the balance the payouts service keeps (payable:
 * approved and in no payout yet) with the verdict of the rule generation follows, and what stands
 * in the way of the partner's payout method, said once.
 */
function NextPayoutSection({ ctx, next }: { ctx: PortalContext; next: NextPayout }) {
  const { partner } = ctx;
  const minimum = next.balance?.minimum_payout ?? ctx.program.minimum_payout;
  const method = partner.payout_method;
  const settings = <a href={`${ctx.base}/settings`}>Settings</a>;
  const problem = payoutMethodProblem(method, partner.payout_details);
  const toldAlready = next.currencies.some(({ readiness }) => !readiness.ready && readiness.reason === problem?.reason);
  const methodProblem =
    !problem || toldAlready ? null : problem.reason === 'no_payout_method' ? (
      <p class="error">Choose how you want to be paid in {settings}: payouts leave out partners without a payout method.</p>
    ) : (
      <p class="error">
        Add your {payoutLabel(problem.method)} e-mail address in {settings}: a payout by {payoutLabel(problem.method)} needs it.
      </p>
    );
  return (
    <section aria-labelledby="next-payout-title" id="next-payout">
      <h2 id="next-payout-title">Next payout</h2>
      {next.currencies.length === 0 ? (
        <p class="empty">
          Nothing earned yet. Commissions are paid out once they are approved
          {minimum > 0 ? ` and add up to at least ${formatMoney(minimum, ctx.program.currency_code)}` : ''}.
        </p>
      ) : (
        next.currencies.map(({ amounts: a, readiness }) => {
          const m = (cents: number) => formatMoney(cents, a.currency);
          return (
            <div data-currency={a.currency}>
              {next.currencies.length > 1 ? <h3>{a.currency}</h3> : null}
              <p>
                <NextPayoutLine ctx={ctx} amounts={a} readiness={readiness} />
              </p>
              <Figures>
                <Figure label="Payable" value={m(a.payable)} hint={minimum > 0 ? `payouts start at ${m(minimum)}` : 'no minimum'} />
                <Figure label="Waiting for approval" value={m(a.pending)} />
                {a.on_hold > 0 ? <Figure label="Under review" value={m(a.on_hold)} hint="paid once the review is done" /> : null}
                <Figure label="In payouts on their way" value={m(a.in_payouts)} />
                <Figure label="Paid to you" value={m(a.paid)} />
              </Figures>
            </div>
          );
        })
      )}
      {methodProblem}
      {method === 'none' ? null : <p class="muted">{`Paid by ${payoutLabel(method)}.`}</p>}
    </section>
  );
}

function PayoutPage({
  ctx,
  payout,
  commissions,
  cursor,
}: {
  ctx: PortalContext;
  payout: PayoutObject;
  commissions: Page<PartnerCommission>;
  cursor: Cursor;
}) {
  const base = `${ctx.base}/payouts/${payout.id}`;
  const amount = formatMoney(payout.amount, payout.currency);
  const details = Object.entries(payout.payout_details);
  const what: Record<PayoutObject['status'], string> = {
    pending: 'Being prepared: it is sent with the next batch of payouts.',
    processing: 'On its way: the payment has been sent for processing.',
    paid: `Paid${payout.paid_at ? ` on ${day(payout.paid_at)}` : ''}.`,
    failed: 'The payment did not go through. Its commissions are payable again and go into your next payout.',
    canceled: 'Canceled. Its commissions are payable again and go into your next payout.',
  };
  return (
    <PortalLayout ctx={ctx} title={`Payout of ${amount}`}>
      <p class="crumbs">
        <a href={`${ctx.base}/referrals#payouts`}>Referrals</a> /
      </p>
      <h1>
        Payout of {amount} <StatusBadge status={payout.status} />
      </h1>
      <p>{what[payout.status]}</p>
      <dl class="payout-details">
        <div>
          <dt>Amount</dt>
          <dd>{amount}</dd>
        </div>
        <div>
          <dt>Made</dt>
          <dd>{day(payout.created_at)}</dd>
        </div>
        <div>
          <dt>Paid by</dt>
          <dd>
            {payoutLabel(payout.payout_method)}
            {details.map(([k, v]) => (
              <span class="sub">{`${detailLabel(payout.payout_method, k)}: ${v}`}</span>
            ))}
          </dd>
        </div>
        <div>
          <dt>Commissions</dt>
          <dd>
            {count(payout.commission_count)} earned {day(payout.period_start)} – {day(payout.period_end)}
          </dd>
        </div>
        <div>
          <dt>Reference</dt>
          <dd>{payout.reference ?? '—'}</dd>
        </div>
        <div>
          <dt>Payout id</dt>
          <dd>
            <RecordId id={payout.id} copyLabel="Copy the payout id" />
          </dd>
        </div>
      </dl>
      <p class="hint">Asking the {ctx.program.name} team about this payout? Give them its id.</p>
      <section aria-labelledby="payout-commissions-title">
        <h2 id="payout-commissions-title">{payout.status === 'paid' ? 'Commissions it paid' : 'Commissions in it'}</h2>
        <CommissionsTable
          ctx={ctx}
          caption="The commissions of this payout, newest first"
          rows={commissions.rows}
          empty={
            payout.status === 'failed' || payout.status === 'canceled'
              ? 'None any more: its commissions went back to payable, for your next payout.'
              : 'None.'
          }
        />
        <Pager page={commissions} base={base} filters={{}} cursor={cursor} />
      </section>
      <p>
        <a href={`${ctx.base}/referrals#payouts`}>Back to your referrals</a>
      </p>
    </PortalLayout>
  );
}
