import type { Response, Router } from 'express';
import { z } from 'zod';
import type { CommissionRow, TransactionRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { externalId, idField } from '../../http/fields.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney, parseMajorUnits, toMajorUnits } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { customerLabel, day, partnerName, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { type Children, sendPage } from '../../pages/render.js';
import { type RewardEffect, worthNow } from '../../resources/commissions/refund-plan.js';
import { requireProgramPartner } from '../../resources/partners/partners.service.js';
import { transactionCommissions } from '../../resources/transactions/transactions.repository.js';
import { type TransactionObject, TransactionRefund } from '../../resources/transactions/transactions.schema.js';
import {
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
import { checkPartnerFilter } from '../list-filters.js';
import { TransactionTable } from '../transaction-table.js';

const PAGE_SIZE = 25;

export const transactionNotices: Record<string, string> = {
  'transaction-refunded': 'Refund recorded. Its effect on the commissions is listed below.',
};

const TransactionFilters = z.strictObject({
  partner_id: idField.optional(),
  customer_id: idField.optional(),
  charge_id: externalId.optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof TransactionFilters>;

/** Major units of `cents`, as typed in a form ("12.50"), which parseAmount reads back exactly. */

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
    const filters = fromFields(
      TransactionFilters,
      req.query,
      ['partner_id', 'customer_id', 'charge_id', 'starting_after', 'ending_before'],
      'query',
    );
    await checkPartnerFilter(deps, ctx, filters.partner_id);
    const page = await listTransactions(db, ctx.user.organization_id, {
      program_id: ctx.program.id,
      partner_id: filters.partner_id,
      customer_id: filters.customer_id,
      charge_id: filters.charge_id,
      starting_after: filters.starting_after,
      ending_before: filters.ending_before,
      limit: PAGE_SIZE,
      expand: ['customer', 'partner'],
    });
    sendPage(res, <TransactionListPage ctx={ctx} page={page} filters={filters} />);
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
    refund: { amount?: string; error?: string } = {},
    status = 200,
  ) {
    const org = ctx.user.organization_id;
    const [transaction, commissions] = await Promise.all([
      retrieveTransaction(db, org, id, ['customer', 'partner']),
      transactionCommissions(db, org, id),
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
      return sendTransactionPage(res, ctx, transaction.id, { amount: typed, error: err.message }, 400);
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
      return sendTransactionPage(res, ctx, transaction.id, { amount: typed, error: err.message }, err.status);
    }
    res.redirect(303, programPath(ctx.program, `/transactions/${transaction.id}?notice=transaction-refunded`));
  });
}

function TransactionListPage({ ctx, page, filters }: { ctx: ProgramPageContext; page: Page<TransactionObject>; filters: Filters }) {
  const program = ctx.program;
  const base = programPath(program, '/transactions');
  const kept = { partner_id: filters.partner_id, customer_id: filters.customer_id, charge_id: filters.charge_id };
  const filtered = Object.values(kept).some(Boolean);
  return (
    <Layout ctx={ctx} title="Transactions">
      <div class="page-head">
        <h1>Transactions</h1>
      </div>
      <search>
        <form class="filters" method="get" action={base}>
          <label for="partner_id">Partner id</label>
          <input id="partner_id" name="partner_id" value={filters.partner_id ?? ''} maxlength={64} placeholder="prt_…" />
          <label for="customer_id">Customer id</label>
          <input id="customer_id" name="customer_id" value={filters.customer_id ?? ''} maxlength={64} placeholder="cust_…" />
          <label for="charge_id">Charge id</label>
          <input id="charge_id" name="charge_id" value={filters.charge_id ?? ''} maxlength={255} placeholder="ch_…" />
          <button type="submit">Filter</button>
          {filtered ? <a href={base}>Clear</a> : null}
        </form>
      </search>
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
      <Pager page={page} base={base} filters={kept} cursor={filters as Cursor} />
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

/** A commission row's kind: a reward, or a refund entry of one (short id). */
const kindOf = (c: CommissionRow) => (c.type === 'refund' ? `Refund entry of ${c.refund_of}` : 'Reward');

function TransactionPage({
  ctx,
  transaction: t,
  commissions,
  refund,
}: {
  ctx: ProgramPageContext;
  transaction: TransactionObject;
  commissions: CommissionRow[];
  refund: { amount?: string; error?: string };
}) {
  const program = ctx.program;
  const base = programPath(program, `/transactions/${t.id}`);
  const remaining = t.amount - t.refunded_amount;
  const rewards = commissions.filter((c) => c.type === 'reward');
  const counted = rewards.reduce(
    (sum, reward) => sum + worthNow({ reward, entries: commissions.filter((e) => e.type === 'refund' && e.refund_of === reward.id) }),
    0,
  );
  const partnerLabel = t.partner ? partnerName(t.partner) : t.partner_id;
  return (
    <Layout ctx={ctx} title={`Transaction ${t.id}`}>
      <p class="crumbs">
        <a href={programPath(program, '/transactions')}>Transactions</a> /
      </p>
      <div class="page-head">
        <h1>
          {formatMoney(t.amount, t.currency)} on {day(t.created_at)} <StatusBadge status={t.status} />
        </h1>
      </div>
      <p class="sub">{t.id}</p>
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
            <a href={programPath(program, `/customers/${t.customer_id}`)}>{t.customer ? customerLabel(t.customer) : t.customer_id}</a>,
          ],
          ['Partner', <a href={programPath(program, `/partners/${t.partner_id}`)}>{partnerLabel}</a>],
          ['Paid at', time(t.created_at)],
          ['Charge id', t.charge_id ?? '—'],
          ['Product', t.product_name ?? t.product_id ?? '—'],
          ['Billing', t.billing_type === 'subscription' ? `subscription${t.interval ? `, every ${t.interval}` : ''}` : 'one-time'],
          ['Source', t.source ?? '—'],
          ['Last refund', t.refunded_at ? time(t.refunded_at) : '—'],
        ]}
      />

      <section aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        {remaining === 0 ? (
          <p class="muted">This payment is fully refunded: nothing is left to refund.</p>
        ) : (
          <form method="post" action={`${base}/refund/preview`} class="stack refund-form">
            <Csrf ctx={ctx} />
            <label for="refund-amount">
              Amount to refund ({t.currency}, up to {formatMoney(remaining, t.currency)})
            </label>
            <input
              id="refund-amount"
              name="amount"
              inputmode="decimal"
              required
              value={refund.amount ?? toMajorUnits(remaining, t.currency)}
              aria-invalid={refund.error ? 'true' : undefined}
              aria-describedby={refund.error ? 'refund-error' : 'refund-help'}
            />
            {refund.error ? (
              <p id="refund-error" class="error" role="alert">
                {refund.error}
              </p>
            ) : (
              <p id="refund-help" class="muted">
                Record a refund you made with your payment provider. You see what it does to the partner's commissions before anything
                changes.
              </p>
            )}
            <button type="submit" class="primary">
              Preview refund
            </button>
          </form>
        )}
      </section>

      <section aria-labelledby="commissions-title">
        <h2 id="commissions-title">Commissions</h2>
        {commissions.length === 0 ? (
          <p class="empty">
            No commission on this payment: no flow of the program matched it, or the partner was not active when it was paid. You can add
            one by hand with POST /v1/commissions.
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Commission</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Revenue
                  </th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                </tr>
              </thead>
              <tbody>
                {commissions.map((c) => (
                  <tr class={c.type === 'refund' ? 'refund-entry' : undefined}>
                    <th scope="row">
                      {c.id} <span class="sub">{time(c.created_at)}</span>
                    </th>
                    <td>{kindOf(c)}</td>
                    <td>
                      <CommissionStatus commission={c} />
                    </td>
                    <td class="num">{c.revenue === null ? '—' : formatMoney(c.revenue, c.currency ?? t.currency)}</td>
                    <td class="num">{formatMoney(c.amount, c.currency ?? t.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}

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
  const clawedBack = preview.effects.reduce((sum, e) => sum + (e.before - e.after), 0);
  const kept = preview.effects.reduce((sum, e) => sum + e.after, 0);
  return (
    <Layout ctx={ctx} title="Confirm the refund">
      <p class="crumbs">
        <a href={programPath(program, '/transactions')}>Transactions</a> / <a href={base}>{t.id}</a> /
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
      {preview.effects.length === 0 ? (
        <p class="empty">This payment has no commission: the refund changes only the payment's refunded amount.</p>
      ) : (
        <div class="table-wrap">
          <table class="data refund-preview">
            <thead>
              <tr>
                <th scope="col">Commission</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Counts now
                </th>
                <th scope="col" class="num">
                  Clawed back
                </th>
                <th scope="col" class="num">
                  Counts after
                </th>
                <th scope="col">What happens</th>
              </tr>
            </thead>
            <tbody>
              {preview.effects.map((e) => {
                const currency = byId.get(e.reward_id)?.currency ?? t.currency;
                return (
                  <tr>
                    <th scope="row">{e.reward_id}</th>
                    <td>
                      <StatusBadge status={e.status} />
                    </td>
                    <td class="num">{formatMoney(e.before, currency)}</td>
                    <td class="num">{formatMoney(e.before - e.after, currency)}</td>
                    <td class="num">{formatMoney(e.after, currency)}</td>
                    <td>{effectText(e, currency)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
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
