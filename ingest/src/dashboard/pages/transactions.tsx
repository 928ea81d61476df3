import type { Response, Router } from 'express';
import { z } from 'zod';
import type { CommissionRow, TransactionRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { externalId } from '../../http/fields.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney, parseMajorUnits, toMajorUnits } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal } from '../../pages/fields.js';
import { CsvLink, DayField, FilterForm, type ListFilters, PickerChoiceLists, PickerFields, readListFilters } from '../../pages/filters.js';
import { customerLabel, day, partnerName, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { RecordId } from '../../pages/record-id.js';
import { type Refusal, refusalOf } from '../../pages/refusal.js';
import { type Children, sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { type RewardEffect, worthNow } from '../../resources/commissions/refund-plan.js';
import { calendarDay } from '../../resources/stats/stats.schema.js';
import { type TransactionObject, TransactionRefund } from '../../resources/transactions/transactions.schema.js';
import {
  commissionsOfTransaction,
  listTransactions,
  previewRefund,
  type RefundPreview,
  refundTransaction,
  requireTransaction,
  retrieveTransaction,
} from '../../resources/transactions/transactions.service.js';
import { CommissionStatus } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { createdBetweenDates, csvPath, listPickers, transactionsCsvQuery } from '../list-filters.js';
import { TransactionTable } from '../transaction-table.js';

const PAGE_SIZE = 25;

export const transactionNotices: Record<string, string> = {
  'transaction-refunded': 'Refund recorded. Its effect on the commissions is listed below.',
};

/** The list's own filters (the pickers' are read by listPickers); From and To are UTC days, both included. */
const TransactionFilters = z
  .strictObject({
    charge_id: externalId.optional(),
    from: calendarDay.optional(),
    to: calendarDay.optional(),
    starting_after: listParams.starting_after,
    ending_before: listParams.ending_before,
  })
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: 'must be on or after the From day', path: ['to'] });
type Filters = z.output<typeof TransactionFilters>;
const FILTER_FIELDS = ['charge_id', 'from', 'to', 'starting_after', 'ending_before'];
const FILTER_LABELS = { charge_id: 'Charge id', from: 'From', to: 'To' };
const REFUND_LABELS = { amount: 'Amount to refund' };

/** The refund form's amount: major units of the transaction's currency, through the API's refund schema. */
function refundCents(body: unknown, currency: string): number {
  const raw = (body as Record<string, unknown> | undefined)?.amount;
  const text = typeof raw === 'string' ? raw : '';
  if (text.trim() === '') throw badRequest('Enter the amount to refund', 'amount');
  const cents = parseMajorUnits(text, currency);
  if (cents === null) throw badRequest(`Invalid amount: "${text}" is not an amount in ${currency}`, 'amount');
  return fromFields(TransactionRefund, { amount: cents }, ['amount'], 'body').amount!;
}

export function registerTransactionsPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  router.get('/programs/:programId/transactions', async (req, res) => {
    const ctx = await contextOf(res, 'transactions', req.params.programId);
    const view = await readListFilters({
      base: programPath(ctx.program, '/transactions'),
      query: req.query,
      ...listPickers(db, ctx, ['partner', 'customer'], req.query),
      schema: TransactionFilters,
      fields: FILTER_FIELDS,
      labels: FILTER_LABELS,
      keep: (f) => ({ charge_id: f.charge_id, from: f.from, to: f.to }),
    });
    if (view.moved) return res.redirect(303, view.moved);
    const f = view.filters;
    const page =
      view.ready && f
        ? await listTransactions(db, ctx.user.organization_id, {
            program_id: ctx.program.id,
            partner_id: view.kept.partner_id,
            customer_id: view.kept.customer_id,
            charge_id: f.charge_id,
            ...createdBetweenDates(f),
            starting_after: f.starting_after,
            ending_before: f.ending_before,
            limit: PAGE_SIZE,
            expand: ['customer', 'partner'],
          })
        : null;
    sendPage(res, <TransactionListPage ctx={ctx} view={view} page={page} />, view.refusal?.status ?? 200);
  });

  /** The transaction of the program in the URL; another program's or organization's is a 404. */
  async function programTransaction(ctx: ProgramPageContext, id: string): Promise<TransactionRow> {
    const transaction = await requireTransaction(db, ctx.user.organization_id, id);
    if (transaction.program_id !== ctx.program.id) throw notFound('transaction', id);
    return transaction;
  }

  /** The transaction page, with the refund form showing `refund` (what was typed, and what was wrong with it). */
  async function sendTransactionPage(
    res: Response,
    ctx: ProgramPageContext,
    id: string,
    refund: { amount?: string; refusal?: Refusal } = {},
    status = 200,
  ) {
    const org = ctx.user.organization_id;
    const [transaction, commissions] = await Promise.all([
      retrieveTransaction(db, org, id, ['customer', 'partner']),
      commissionsOfTransaction(db, org, id),
    ]);
    sendPage(res, <TransactionPage ctx={ctx} transaction={transaction} commissions={commissions} refund={refund} />, status);
  }

  router.get('/programs/:programId/transactions/:transactionId', async (req, res) => {
    const ctx = await contextOf(res, 'transactions', req.params.programId);
    const transaction = await programTransaction(ctx, req.params.transactionId);
    await sendTransactionPage(res, ctx, transaction.id);
  });

  /** A refund's preview: what it would do to the commissions, planned as the refund plans it; nothing is written. */
  router.post('/programs/:programId/transactions/:transactionId/refund/preview', async (req, res) => {
    const ctx = await contextOf(res, 'transactions', req.params.programId);
    const transaction = await programTransaction(ctx, req.params.transactionId);
    const typed = typeof req.body?.amount === 'string' ? req.body.amount : '';
    let preview: RefundPreview;
    try {
      preview = await previewRefund(db, ctx.user.organization_id, transaction.id, refundCents(req.body, transaction.currency));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      return sendTransactionPage(res, ctx, transaction.id, { amount: typed, refusal: refusalOf(err, REFUND_LABELS) }, 400);
    }
    sendPage(res, <RefundPreviewPage ctx={ctx} preview={preview} />);
  });

  /** The refund itself, once its preview was confirmed; a transaction refunded since the preview → 409. */
  router.post('/programs/:programId/transactions/:transactionId/refund', async (req, res) => {
    const ctx = await contextOf(res, 'transactions', req.params.programId);
    const transaction = await programTransaction(ctx, req.params.transactionId);
    const typed = typeof req.body?.amount === 'string' ? req.body.amount : '';
    if (req.body?.confirm !== '1') throw badRequest('Preview the refund first, then confirm it', 'confirm');
    const refundedBefore = Number(req.body?.refunded_before);
    if (!Number.isSafeInteger(refundedBefore) || refundedBefore < 0)
      throw badRequest('Preview the refund first, then confirm it', 'refunded_before');
    try {
      await refundTransaction(db, ctx.user.organization_id, transaction.id, refundCents(req.body, transaction.currency), refundedBefore);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 400 && err.status !== 409)) throw err;
      return sendTransactionPage(res, ctx, transaction.id, { amount: typed, refusal: refusalOf(err, REFUND_LABELS) }, err.status);
    }
    res.redirect(303, programPath(ctx.program, `/transactions/${transaction.id}?notice=transaction-refunded`));
  });
}

function TransactionListPage({
  ctx,
  view,
  page,
}: {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  page: Page<TransactionObject> | null;
}) {
  const base = programPath(ctx.program, '/transactions');
  const { kept, typed } = view;
  const filtered = Object.values(kept).some(Boolean);
  return (
    <Layout ctx={ctx} title="Transactions">
      <div class="page-head">
        <h1>Transactions</h1>
        {page ? <CsvLink href={csvPath(ctx.program, 'transactions', transactionsCsvQuery(kept))} /> : null}
      </div>
      <FilterForm action={base} label="Filter transactions" filtered={filtered}>
        <PickerFields view={view} />
        <Field name="charge_id" label="Charge id" value={typed.charge_id} maxlength={255} placeholder="ch_…" refusal={view.refusal} />
        <DayField name="from" label="From" value={typed.from} refusal={view.refusal} />
        <DayField name="to" label="To" value={typed.to} refusal={view.refusal} />
      </FilterForm>
      <PickerChoiceLists view={view} />
      {page ? (
        <>
          <TransactionTable
            ctx={ctx}
            rows={page.rows}
            showCustomer
            empty={
              filtered
                ? 'No transaction matches these filters. Clear them to see every payment.'
                : 'No transactions yet. A payment of a referred customer is recorded by your server with POST /v1/transactions, or by Stripe once it is connected; its commissions are made at the same time.'
            }
          />
          <Pager page={page} base={base} filters={kept} cursor={view.filters as Cursor} />
        </>
      ) : null}
    </Layout>
  );
}

function Facts({ items }: { items: [string, Children][] }) {
  return (
    <dl class="facts">
      {items.map(([label, value]) => (
        <div>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A commission of the payment in words: a reward, or a refund entry of one, named by its amount. */
function kindOf(c: CommissionRow, all: CommissionRow[], currency: string): string {
  if (c.type !== 'refund') return 'Reward';
  const reward = all.find((r) => r.id === c.refund_of);
  return reward ? `Refund entry of the ${formatMoney(reward.amount, reward.currency ?? currency)} reward` : 'Refund entry';
}

function TransactionPage({
  ctx,
  transaction: t,
  commissions,
  refund,
}: {
  ctx: ProgramPageContext;
  transaction: TransactionObject;
  commissions: CommissionRow[];
  refund: { amount?: string; refusal?: Refusal };
}) {
  const program = ctx.program;
  const base = programPath(program, `/transactions/${t.id}`);
  const remaining = t.amount - t.refunded_amount;
  const rewards = commissions.filter((c) => c.type === 'reward');
  const counted = rewards.reduce(
    (sum, reward) => sum + worthNow({ reward, entries: commissions.filter((e) => e.type === 'refund' && e.refund_of === reward.id) }),
    0,
  );
  const partnerLabel = t.partner ? partnerName(t.partner) : "Partner's page";
  const title = paymentTitle(t);
  return (
    <Layout ctx={ctx} title={title}>
      <p class="crumbs">
        <a href={programPath(program, '/transactions')}>Transactions</a> /
      </p>
      <div class="page-head">
        <h1>
          {title} <StatusBadge status={t.status} />
        </h1>
      </div>
      <dl class="figures">
        <div class="figure">
          <dt>Amount</dt>
          <dd class="value">{formatMoney(t.amount, t.currency)}</dd>
        </div>
        <div class="figure">
          <dt>Refunded</dt>
          <dd class="value">{formatMoney(t.refunded_amount, t.currency)}</dd>
        </div>
        <div class="figure">
          <dt>Left to refund</dt>
          <dd class="value">{formatMoney(remaining, t.currency)}</dd>
        </div>
        <div class="figure">
          <dt>Commission counted</dt>
          <dd class="value">{formatMoney(counted, t.currency)}</dd>
        </div>
      </dl>
      <Facts
        items={[
          [
            'Customer',
            <a href={programPath(program, `/customers/${t.customer_id}`)}>{t.customer ? customerLabel(t.customer) : "Customer's page"}</a>,
          ],
          ['Partner', <a href={programPath(program, `/partners/${t.partner_id}`)}>{partnerLabel}</a>],
          ['Paid at', time(t.created_at)],
          ['Charge id', t.charge_id ?? '—'],
          ['Product', t.product_name ?? t.product_id ?? '—'],
          ['Billing', t.billing_type === 'subscription' ? `subscription${t.interval ? `, every ${t.interval}` : ''}` : 'one-time'],
          ['Source', t.source ?? '—'],
          ['Last refund', t.refunded_at ? time(t.refunded_at) : '—'],
          ['Transaction id', <RecordId id={t.id} />],
        ]}
      />

      <section aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        {remaining === 0 ? (
          <p class="muted">This payment is fully refunded: nothing is left to refund.</p>
        ) : (
          <form method="post" action={`${base}/refund/preview`} class="stack refund-form">
            <Csrf ctx={ctx} />
            <FormRefusal refusal={refund.refusal} fields={['amount']} />
            <Field
              name="amount"
              id="refund-amount"
              label={`Amount to refund (${t.currency}, up to ${formatMoney(remaining, t.currency)})`}
              inputmode="decimal"
              required
              value={refund.amount ?? toMajorUnits(remaining, t.currency)}
              hint="Record a refund you made with your payment provider. You see what it does to the partner's commissions before anything changes."
              refusal={refund.refusal}
            />
            <button type="submit" class="primary">
              Preview refund
            </button>
          </form>
        )}
      </section>

      <section aria-labelledby="commissions-title">
        <h2 id="commissions-title">Commissions</h2>
        <DataTable
          caption="Commissions of this payment"
          rows={commissions}
          empty="No commission on this payment: no flow of the program matched it, or the partner was not active when it was paid. You can add one by hand with POST /v1/commissions."
          columns={[
            { head: 'Commission', cell: (c) => kindOf(c, commissions, t.currency) },
            { head: 'Made', cell: (c) => time(c.created_at) },
            { head: 'Status', cell: (c) => <CommissionStatus commission={c} /> },
            { head: 'Revenue', numeric: true, cell: (c) => (c.revenue === null ? '—' : formatMoney(c.revenue, c.currency ?? t.currency)) },
            { head: 'Amount', numeric: true, cell: (c) => formatMoney(c.amount, c.currency ?? t.currency) },
          ]}
        />
      </section>
    </Layout>
  );
}

/** A payment as its page names it: "Payment of $49.00 on 2026-03-01". */
const paymentTitle = (t: { amount: number; currency: string; created_at: string | Date }) =>
  `Payment of ${formatMoney(t.amount, t.currency)} on ${day(t.created_at)}`;

/** What a preview says of one reward. */
function effectText(e: RewardEffect, currency: string): string {
  if (e.action === 'refunded') return 'Marked refunded: it is not paid, and leaves the totals with its unpaid refund entries.';
  if (e.action === 'entry') {
    const entry = e.entry!;
    return entry.status === 'approved' && e.status === 'paid'
      ? `A refund entry of ${formatMoney(entry.amount, currency)}, approved: taken back from the partner's next payout (already paid).`
      : `A refund entry of ${formatMoney(entry.amount, currency)}, ${entry.status} like its commission.`;
  }
  return e.before === 0 ? `Not counted (${e.status}): unchanged.` : 'Unchanged.';
}

function RefundPreviewPage({ ctx, preview }: { ctx: ProgramPageContext; preview: RefundPreview }) {
  const program = ctx.program;
  const t = preview.transaction;
  const base = programPath(program, `/transactions/${t.id}`);
  const byId = new Map(preview.commissions.map((c) => [c.id, c]));
  const currencyOf = (e: RewardEffect) => byId.get(e.reward_id)?.currency ?? t.currency;
  const clawedBack = preview.effects.reduce((sum, e) => sum + (e.before - e.after), 0);
  const kept = preview.effects.reduce((sum, e) => sum + e.after, 0);
  return (
    <Layout ctx={ctx} title="Confirm the refund">
      <p class="crumbs">
        <a href={programPath(program, '/transactions')}>Transactions</a> / <a href={base}>{paymentTitle(t)}</a> /
      </p>
      <div class="page-head">
        <h1>
          Refund {formatMoney(preview.refund, t.currency)} of {formatMoney(t.amount, t.currency)}?
        </h1>
      </div>
      <p>
        Nothing has changed yet. After this refund the payment is <StatusBadge status={preview.after.status} /> with{' '}
        {formatMoney(preview.after.refunded_amount, t.currency)} refunded in all.
      </p>
      <dl class="figures" data-testid="refund-figures">
        <div class="figure">
          <dt>This refund</dt>
          <dd class="value">{formatMoney(preview.refund, t.currency)}</dd>
        </div>
        <div class="figure">
          <dt>Commission clawed back</dt>
          <dd class="value">{formatMoney(clawedBack, t.currency)}</dd>
        </div>
        <div class="figure">
          <dt>Commission kept</dt>
          <dd class="value">{formatMoney(kept, t.currency)}</dd>
        </div>
      </dl>
      <h2>Effect on the commissions</h2>
      <div class="refund-preview">
        <DataTable
          caption="What the refund does to each commission"
          rows={preview.effects}
          empty="This payment has no commission: the refund changes only the payment's refunded amount."
          columns={[
            {
              head: 'Commission',
              cell: (e) => {
                const reward = byId.get(e.reward_id);
                return reward ? `The ${formatMoney(reward.amount, currencyOf(e))} reward` : 'A reward';
              },
            },
            { head: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
            { head: 'Counts now', numeric: true, cell: (e) => formatMoney(e.before, currencyOf(e)) },
            { head: 'Clawed back', numeric: true, cell: (e) => formatMoney(e.before - e.after, currencyOf(e)) },
            { head: 'Counts after', numeric: true, cell: (e) => formatMoney(e.after, currencyOf(e)) },
            { head: 'What happens', cell: (e) => effectText(e, currencyOf(e)) },
          ]}
        />
      </div>
      <form method="post" action={`${base}/refund`} class="actions">
        <Csrf ctx={ctx} />
        <input type="hidden" name="amount" value={toMajorUnits(preview.refund, t.currency)} />
        <input type="hidden" name="refunded_before" value={String(t.refunded_amount)} />
        <input type="hidden" name="confirm" value="1" />
        <button type="submit" class="danger">
          Refund {formatMoney(preview.refund, t.currency)}
        </button>
        <a href={base}>Cancel</a>
      </form>
    </Layout>
  );
}
