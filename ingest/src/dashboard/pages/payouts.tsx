import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Router } from 'express';
import { z } from 'zod';
import { loadByIds } from '../../db/load-by-ids.js';
import type { AppDeps } from '../../deps.js';
import { badRequest, notFound } from '../../http/errors.js';
import { idField } from '../../http/fields.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { count, day, partnerName, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import { type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import type { NotReadyReason } from '../../resources/payouts/payout-readiness.js';
import { PAYOUT_FILE_TYPE, payoutFile } from '../../resources/payouts/payouts.routes.js';
import {
  type BalanceObject,
  EXPORT_FORMATS,
  type GenerateResultObject,
  PAYOUT_STATUSES,
  PayoutExportQuery,
  PayoutGenerate,
  type PayoutObject,
  type PayoutStatus,
  PayoutUpdate,
} from '../../resources/payouts/payouts.schema.js';
import {
  exportPayouts,
  generateProgramPayouts,
  listBalances,
  listPayoutCommissions,
  listPayouts,
  NEXT_STATUSES,
  retrievePayout,
  updatePayout,
} from '../../resources/payouts/payouts.service.js';
import { calendarDay } from '../../resources/stats/stats.schema.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';

/**
 * The program's payouts (ingest/docs/payouts.md): who is owed what, generating a batch, the payouts
 * and their transitions, and the batch files. Every rule is the payouts service's: this page
 * only reads forms through the API's schemas and shows what the service answers.
 */

const PAGE_SIZE = 25;

export const payoutNotices: Record<string, string> = {
  'payout-processing': 'Payout marked processing: refunds no longer change it.',
  'payout-paid': 'Payout marked paid: its commissions are paid.',
  'payout-failed': 'Payout marked failed: its commissions are payable again.',
  'payout-canceled': 'Payout canceled: its commissions are payable again.',
};

/** What each button of a payout page asks the service for, and the notice after it. */
const TRANSITIONS = {
  processing: { label: 'Mark processing', notice: 'payout-processing' },
  paid: { label: 'Mark paid', notice: 'payout-paid' },
  failed: { label: 'Mark failed', notice: 'payout-failed' },
  canceled: { label: 'Cancel payout', notice: 'payout-canceled' },
} as const satisfies Partial<Record<PayoutStatus, { label: string; notice: string }>>;
type Transition = keyof typeof TRANSITIONS;

const PayoutFilters = z.strictObject({
  status: z.enum(PAYOUT_STATUSES).optional(),
  partner_id: idField.optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof PayoutFilters>;

const PageCursor = z.strictObject({ starting_after: listParams.starting_after, ending_before: listParams.ending_before });

/** The generate form: a UTC day, whose end is the cut-off the service takes. */
const GenerateForm = z.strictObject({ up_to_day: calendarDay.optional() });

const FORMAT_NAMES: Record<(typeof EXPORT_FORMATS)[number], string> = { paypal: 'PayPal', wise: 'Wise', csv: 'CSV' };

/** Why a generation left a partner out, in words: the reason payoutReadiness gave (payouts/payout-readiness.ts). */
function skipReason(s: GenerateResultObject['skipped'][number], method: string | undefined): string {
  const reasons: Record<NotReadyReason, string> = {
    below_minimum: `Below the minimum payout of ${formatMoney(s.minimum_payout, s.currency)}: stays payable for a later payout.`,
    no_payout_method: 'No payout method yet: ask the partner to choose one (PayPal, Wise, bank …).',
    missing_payout_details: `Paid by ${method ?? 'PayPal or Wise'} but without the e-mail address the batch file needs: ask the partner for it.`,
    negative_balance: 'Owes money after refunds: carried forward, so their next payout is smaller.',
    nothing_owed: 'Nothing owed: their refunds equal what they earned.',
    partner_deleted: 'The partner was deleted.',
  };
  return reasons[s.reason];
}

export function registerPayoutsPages(router: Router, { db, mailer }: AppDeps, contextOf: ContextOf): void {
  router.get('/programs/:programId/payouts', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const filters = fromFields(PayoutFilters, req.query, ['status', 'partner_id', 'starting_after', 'ending_before'], 'query');
    const page = await listPayouts(db, ctx.user.organization_id, {
      program_id: ctx.program.id,
      status: filters.status,
      partner_id: filters.partner_id,
      starting_after: filters.starting_after,
      ending_before: filters.ending_before,
      limit: PAGE_SIZE,
      expand: ['partner'],
    });
    sendPage(res, <PayoutListPage ctx={ctx} page={page} filters={filters} />);
  });

  router.get('/programs/:programId/payouts/balances', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const cursor = fromFields(PageCursor, req.query, ['starting_after', 'ending_before'], 'query');
    const page = await listBalances(db, ctx.user.organization_id, ctx.program.id, { ...cursor, limit: PAGE_SIZE, expand: ['partner'] });
    sendPage(res, <BalancesPage ctx={ctx} page={page} cursor={cursor} />);
  });

  // The generation's answer is a report shown once (what was made, who was left out and why), as
  // a secret is: generating again right after finds nothing new.
  router.post('/programs/:programId/payouts/generate', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const form = fromFields(GenerateForm, req.body, ['up_to_day'], 'body');
    const input = fromFields(
      PayoutGenerate,
      { program_id: ctx.program.id, up_to: form.up_to_day ? `${form.up_to_day}T23:59:59.999Z` : undefined },
      ['program_id', 'up_to'],
      'body',
    );
    const result = await generateProgramPayouts(db, ctx.user.organization_id, input);
    const partners = await loadByIds(
      db,
      'partners',
      [...result.payouts, ...result.skipped].map((r) => r.partner_id),
    );
    const names = new Map([...partners].map(([id, p]) => [id, { name: partnerName(p), method: p.payout_method }]));
    sendPage(res, <GeneratedPage ctx={ctx} result={result} names={names} />);
  });

  // Before /payouts/:payoutId, which would take "export" for an id.
  router.get('/programs/:programId/payouts/export', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const query = fromFields(
      PayoutExportQuery,
      { ...req.query, program_id: ctx.program.id },
      ['program_id', 'format', 'status', 'currency'],
      'query',
    );
    // What GET /v1/payouts/export sends (payouts.routes.ts), byte for byte.
    const file = payoutFile(await exportPayouts(db, ctx.user.organization_id, query));
    res.status(200).type(PAYOUT_FILE_TYPE).attachment(file.filename);
    await pipeline([Readable.from(file.body), ...file.through, res]);
  });

  router.get('/programs/:programId/payouts/:payoutId', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const payout = await programPayout(ctx, req.params.payoutId);
    const cursor = fromFields(PageCursor, req.query, ['starting_after', 'ending_before'], 'query');
    const commissions = await withStoredFields(
      db,
      await listPayoutCommissions(db, ctx.user.organization_id, payout.id, { ...cursor, limit: 50 }),
    );
    sendPage(res, <PayoutPage ctx={ctx} payout={payout} commissions={commissions} cursor={cursor} />);
  });

  router.post('/programs/:programId/payouts/:payoutId/status', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const payout = await programPayout(ctx, req.params.payoutId);
    const action = req.body?.action;
    if (typeof action !== 'string' || !Object.hasOwn(TRANSITIONS, action)) {
      throw badRequest('Choose processing, paid, failed or canceled', 'action');
    }
    const input = fromFields(PayoutUpdate, { ...req.body, status: action }, ['status', 'reference', 'reason'], 'body');
    await updatePayout(db, ctx.user.organization_id, payout.id, input, mailer.kick);
    res.redirect(303, programPath(ctx.program, `/payouts/${payout.id}?notice=${TRANSITIONS[action as Transition].notice}`));
  });

  /** The payout of the program in the URL, its partner expanded; another program's or organization's is a 404. */
  async function programPayout(ctx: ProgramPageContext, payoutId: string): Promise<PayoutObject> {
    const payout = await retrievePayout(db, ctx.user.organization_id, payoutId, ['partner']);
    if (payout.program_id !== ctx.program.id) throw notFound('payout', payoutId);
    return payout;
  }
}

/** The two views of the section: the payouts and the balances. */
function Tabs({ ctx, current }: { ctx: ProgramPageContext; current: 'payouts' | 'balances' }) {
  const program = ctx.program;
  return (
    <nav class="row" aria-label="Payouts views">
      <a class="chip" href={programPath(program, '/payouts')} aria-current={current === 'payouts' ? 'page' : undefined}>
        Payouts
      </a>
      <a class="chip" href={programPath(program, '/payouts/balances')} aria-current={current === 'balances' ? 'page' : undefined}>
        Balances
      </a>
    </nav>
  );
}

function MinimumLine({ ctx }: { ctx: ProgramPageContext }) {
  const program = ctx.program;
  return (
    <p class="muted">
      {program.minimum_payout > 0
        ? `Minimum payout: ${formatMoney(program.minimum_payout, program.currency_code)} (the program's; a group may set its own). `
        : 'No minimum payout: every partner owed something is paid (a group may set a minimum). '}
      <a href={programPath(program, '/settings')}>Change it in the program's settings.</a>
    </p>
  );
}

/** Generate (with an optional cut-off day) and export, the section's two actions. */
function PayoutActions({ ctx }: { ctx: ProgramPageContext }) {
  const base = programPath(ctx.program, '/payouts');
  return (
    <div class="actions">
      <details class="add">
        <summary class="button primary">Generate payouts</summary>
        <form method="post" action={`${base}/generate`} class="stack">
          <Csrf ctx={ctx} />
          <p class="muted">
            One payout per partner of their approved commissions not yet in a payout, when it reaches their minimum and they have a payout
            method.
          </p>
          <label for="up_to_day">Commissions made up to (optional, UTC day)</label>
          <input id="up_to_day" name="up_to_day" type="date" />
          <button type="submit" class="primary">
            Generate payouts
          </button>
        </form>
      </details>
      <details class="add">
        <summary class="button">Export a batch file</summary>
        <form method="get" action={`${base}/export`} class="stack">
          <label for="export-format">File</label>
          <select id="export-format" name="format">
            <option value="paypal">PayPal Payouts (the PayPal payouts)</option>
            <option value="wise">Wise batch payment (the Wise payouts)</option>
            <option value="csv">CSV (every payout, all fields)</option>
          </select>
          <label for="export-status">Payouts that are</label>
          <select id="export-status" name="status">
            {PAYOUT_STATUSES.map((s) => (
              <option value={s} selected={s === 'pending'}>
                {s}
              </option>
            ))}
          </select>
          <label for="export-currency">Currency (optional; a PayPal file holds one)</label>
          <input id="export-currency" name="currency" maxlength={3} placeholder={ctx.program.currency_code} />
          <button type="submit">Download</button>
        </form>
      </details>
    </div>
  );
}

function PayoutListPage({ ctx, page, filters }: { ctx: ProgramPageContext; page: Page<PayoutObject>; filters: Filters }) {
  const program = ctx.program;
  const base = programPath(program, '/payouts');
  const kept = { status: filters.status, partner_id: filters.partner_id };
  const listHref = (status: string | undefined, partnerId: string | undefined) => {
    const params = new URLSearchParams();
    if (status) params.set('status', status);
    if (partnerId) params.set('partner_id', partnerId);
    return params.size ? `${base}?${params}` : base;
  };
  const statusHref = (status?: string) => listHref(status, filters.partner_id);
  const fileStatus = filters.status ?? 'pending';
  const fileHref = (format: string) => `${base}/export?${new URLSearchParams({ format, status: fileStatus })}`;
  const filtered = Object.values(kept).some(Boolean);
  return (
    <Layout ctx={ctx} title="Payouts">
      <div class="page-head">
        <h1>Payouts</h1>
      </div>
      <MinimumLine ctx={ctx} />
      <PayoutActions ctx={ctx} />
      <Tabs ctx={ctx} current="payouts" />
      <nav class="row" aria-label="Payout status">
        <a class="chip" href={statusHref()} aria-current={filters.status ? undefined : 'true'}>
          All
        </a>
        {PAYOUT_STATUSES.map((s) => (
          <a class="chip" href={statusHref(s)} aria-current={filters.status === s ? 'true' : undefined}>
            {s}
          </a>
        ))}
      </nav>
      {filters.partner_id ? (
        <p class="muted">
          Payouts of partner <code>{filters.partner_id}</code> · <a href={listHref(filters.status, undefined)}>all partners</a>
        </p>
      ) : null}
      {page.rows.length === 0 ? (
        <p class="empty">
          {filtered
            ? `No ${filters.status ? `${filters.status} ` : ''}payout matches this filter.`
            : 'No payouts yet. Approve commissions on the Commissions page, then "Generate payouts" groups what each partner is owed into one payout.'}
        </p>
      ) : (
        <>
          {fileStatus === 'pending' || fileStatus === 'processing' ? (
            <p class="row">
              <span>The {fileStatus} payouts as a file:</span>
              {EXPORT_FORMATS.map((f) => (
                <a class="button" href={fileHref(f)}>
                  {`${FORMAT_NAMES[f]} file`}
                </a>
              ))}
            </p>
          ) : null}
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Partner</th>
                  <th scope="col">Method</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                  <th scope="col" class="num">
                    Commissions
                  </th>
                  <th scope="col">Reference</th>
                </tr>
              </thead>
              <tbody>
                {page.rows.map((p) => (
                  <tr>
                    <th scope="row">
                      <a href={`${base}/${p.id}`}>{day(p.created_at)}</a>
                      <span class="sub">{p.id}</span>
                    </th>
                    <td>{p.partner ? partnerName(p.partner) : p.partner_id}</td>
                    <td>{p.payout_method}</td>
                    <td>
                      <StatusBadge status={p.status} />
                    </td>
                    <td class="num">{formatMoney(p.amount, p.currency)}</td>
                    <td class="num">{count(p.commission_count)}</td>
                    <td>{p.reference ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <Pager page={page} base={base} filters={kept} cursor={filters as Cursor} />
    </Layout>
  );
}

function BalancesPage({ ctx, page, cursor }: { ctx: ProgramPageContext; page: Page<BalanceObject>; cursor: Cursor }) {
  const program = ctx.program;
  const base = programPath(program, '/payouts/balances');
  const owed = page.rows.some((b) => b.amounts.length > 0);
  return (
    <Layout ctx={ctx} title="Balances">
      <div class="page-head">
        <h1>Payouts</h1>
      </div>
      <MinimumLine ctx={ctx} />
      <PayoutActions ctx={ctx} />
      <Tabs ctx={ctx} current="balances" />
      <h2>Balances</h2>
      <p class="muted">
        Per partner and currency: pending (not yet approved), payable (approved, in no payout: what the next payout pays, net of refunds),
        in payouts (not paid yet) and paid.
      </p>
      {page.rows.length === 0 ? (
        <p class="empty">
          No partners yet. <a href={programPath(program, '/partners')}>Add partners</a>; what they earn shows here.
        </p>
      ) : (
        <>
          {owed ? null : (
            <p class="empty">
              No commissions yet for these partners: they earn them when referred customers pay, and approved commissions become payable.
            </p>
          )}
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <th scope="col">Payout method</th>
                  <th scope="col" class="num">
                    Minimum
                  </th>
                  <th scope="col">Currency</th>
                  <th scope="col" class="num">
                    Pending
                  </th>
                  <th scope="col" class="num">
                    Payable
                  </th>
                  <th scope="col" class="num">
                    In payouts
                  </th>
                  <th scope="col" class="num">
                    Paid
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.rows.flatMap((b) => {
                  const who = (
                    <th scope="row" rowSpan={Math.max(b.amounts.length, 1)}>
                      <a href={programPath(program, `/partners/${b.partner_id}`)}>{b.partner ? partnerName(b.partner) : b.partner_id}</a>
                      {b.partner ? <span class="sub">{b.partner.email}</span> : null}
                    </th>
                  );
                  const method = (
                    <td rowSpan={Math.max(b.amounts.length, 1)}>{b.payout_method === 'none' ? 'none yet' : b.payout_method}</td>
                  );
                  if (b.amounts.length === 0) {
                    return [
                      <tr data-partner={b.partner_id}>
                        {who}
                        {method}
                        <td class="num">{formatMoney(b.minimum_payout, program.currency_code)}</td>
                        <td colSpan={5} class="muted">
                          No commissions yet
                        </td>
                      </tr>,
                    ];
                  }
                  return b.amounts.map((a, i) => (
                    <tr data-partner={b.partner_id} data-currency={a.currency}>
                      {i === 0 ? who : null}
                      {i === 0 ? method : null}
                      <td class="num">{formatMoney(b.minimum_payout, a.currency)}</td>
                      <td>{a.currency}</td>
                      <td class="num">{formatMoney(a.pending, a.currency)}</td>
                      <td class="num">{formatMoney(a.payable, a.currency)}</td>
                      <td class="num">{formatMoney(a.in_payouts, a.currency)}</td>
                      <td class="num">{formatMoney(a.paid, a.currency)}</td>
                    </tr>
                  ));
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
      {/* The balances' cursor is the partner's id. */}
      <Pager page={{ ...page, rows: page.rows.map((b) => ({ id: b.partner_id })) }} base={base} filters={{}} cursor={cursor} />
    </Layout>
  );
}

function GeneratedPage({
  ctx,
  result,
  names,
}: {
  ctx: ProgramPageContext;
  result: GenerateResultObject;
  names: Map<string, { name: string; method: string }>;
}) {
  const program = ctx.program;
  const base = programPath(program, '/payouts');
  const nameOf = (id: string) => names.get(id)?.name ?? id;
  return (
    <Layout ctx={ctx} title="Payouts generated">
      <p class="crumbs">
        <a href={base}>Payouts</a> /
      </p>
      <div class="page-head">
        <h1>Payouts generated</h1>
      </div>
      <p class="muted">Approved commissions made up to {time(result.up_to)}.</p>
      <section aria-labelledby="made-title">
        <h2 id="made-title">
          {result.payouts.length === 0
            ? 'No payout made'
            : `${count(result.payouts.length)} payout${result.payouts.length === 1 ? '' : 's'} made`}
        </h2>
        {result.payouts.length === 0 ? (
          <p class="empty">
            {result.skipped.length === 0
              ? 'Nobody is owed anything: there are no approved commissions that are not in a payout yet. Approve commissions on the Commissions page first.'
              : 'Every partner owed something was left out, for the reasons below.'}
          </p>
        ) : (
          <>
            <div class="table-wrap">
              <table class="data">
                <thead>
                  <tr>
                    <th scope="col">Partner</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col" class="num">
                      Commissions
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {result.payouts.map((p) => (
                    <tr>
                      <th scope="row">
                        <a href={`${base}/${p.id}`}>{nameOf(p.partner_id)}</a>
                        <span class="sub">{p.id}</span>
                      </th>
                      <td class="num">{formatMoney(p.amount, p.currency)}</td>
                      <td class="num">{count(p.commission_count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="row">
              <span>Next: pay them with a batch file, then mark each payout paid.</span>
              {EXPORT_FORMATS.map((f) => (
                <a class="button" href={`${base}/export?format=${f}`}>
                  {`${FORMAT_NAMES[f]} file`}
                </a>
              ))}
            </p>
          </>
        )}
      </section>
      {result.skipped.length > 0 ? (
        <section aria-labelledby="skipped-title">
          <h2 id="skipped-title">{`${count(result.skipped.length)} left out`}</h2>
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <th scope="col" class="num">
                    Owed
                  </th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {result.skipped.map((s) => (
                  <tr>
                    <th scope="row">
                      <a href={programPath(program, `/partners/${s.partner_id}`)}>{nameOf(s.partner_id)}</a>
                    </th>
                    <td class="num">{formatMoney(s.amount, s.currency)}</td>
                    <td>{skipReason(s, names.get(s.partner_id)?.method)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
      <p>
        <a href={base}>Back to the payouts</a>
      </p>
    </Layout>
  );
}

/** The payout's details as a list of rows (details of the partner's payout method as they were). */
function Details({ payout }: { payout: PayoutObject }) {
  const details = Object.entries(payout.payout_details);
  return (
    <dl class="payout-details">
      <div>
        <dt>Amount</dt>
        <dd>{formatMoney(payout.amount, payout.currency)}</dd>
      </div>
      <div>
        <dt>Payout method</dt>
        <dd>{payout.payout_method}</dd>
      </div>
      <div>
        <dt>Pay to</dt>
        <dd>{details.length === 0 ? '—' : details.map(([k, v]) => <span class="sub">{`${k}: ${v}`}</span>)}</dd>
      </div>
      <div>
        <dt>Commissions</dt>
        <dd>
          {count(payout.commission_count)} made {day(payout.period_start)} – {day(payout.period_end)}
        </dd>
      </div>
      <div>
        <dt>Reference</dt>
        <dd>{payout.reference ?? '—'}</dd>
      </div>
      <div>
        <dt>Payout id</dt>
        <dd>
          <code>{payout.id}</code>{' '}
          <button type="button" class="copy" data-copy={payout.id}>
            Copy
          </button>
        </dd>
      </div>
    </dl>
  );
}

/** What happened to the payout, from its own fields (oldest first). */
function Trail({ payout }: { payout: PayoutObject }) {
  const steps: { at: string; text: string }[] = [
    {
      at: payout.created_at,
      text: `Generated from ${count(payout.commission_count)} approved commission${payout.commission_count === 1 ? '' : 's'}`,
    },
  ];
  if (payout.status === 'processing') steps.push({ at: payout.updated_at, text: 'Marked processing (refunds no longer change it)' });
  if (payout.status === 'paid' && payout.paid_at) {
    steps.push({
      at: payout.paid_at,
      text: `Marked paid${payout.reference ? `, reference ${payout.reference}` : ''}: its commissions are paid`,
    });
  }
  if (payout.status === 'failed' || payout.status === 'canceled') {
    steps.push({
      at: payout.updated_at,
      text: `${payout.status === 'failed' ? 'Failed' : 'Canceled'}${payout.reason ? `: ${payout.reason}` : ''}. Its commissions are payable again.`,
    });
  }
  if (payout.status === 'pending' && payout.updated_at !== payout.created_at) {
    steps.push({ at: payout.updated_at, text: 'Last changed (a refund or a new reference)' });
  }
  return (
    <ol class="activity">
      {steps.map((s) => (
        <li>
          {s.text}
          <time datetime={s.at}>{time(s.at)}</time>
        </li>
      ))}
    </ol>
  );
}

/** A form per transition the service allows from this status (NEXT_STATUSES); none for a final payout. */
function TransitionForms({ ctx, payout, action }: { ctx: ProgramPageContext; payout: PayoutObject; action: string }) {
  const next = NEXT_STATUSES[payout.status].filter((s): s is Transition => Object.hasOwn(TRANSITIONS, s));
  if (next.length === 0) {
    return <p class="muted">A {payout.status} payout is final: it cannot change.</p>;
  }
  const amount = formatMoney(payout.amount, payout.currency);
  return (
    <div class="actions">
      {next.includes('processing') ? (
        <details class="inline">
          <summary class="button">Mark processing…</summary>
          <form method="post" action={action} class="stack">
            <Csrf ctx={ctx} />
            <p class="muted">When the file is at PayPal, Wise or the bank: refunds from now on lower the partner's next payout instead.</p>
            <label for="processing-reference">Batch reference (optional)</label>
            <input id="processing-reference" name="reference" maxlength={255} value={payout.reference ?? ''} />
            <button type="submit" name="action" value="processing">
              {TRANSITIONS.processing.label}
            </button>
          </form>
        </details>
      ) : null}
      {next.includes('paid') ? (
        <details class="inline">
          <summary class="button primary">Mark paid…</summary>
          <form method="post" action={action} class="stack">
            <Csrf ctx={ctx} />
            <label for="paid-reference">Payment reference (optional: the PayPal, Wise or bank transaction id)</label>
            <input id="paid-reference" name="reference" maxlength={255} value={payout.reference ?? ''} />
            <button
              type="submit"
              name="action"
              value="paid"
              class="primary"
              data-confirm={`Mark ${amount} paid? Its commissions become paid; this cannot be undone.`}
            >
              {TRANSITIONS.paid.label}
            </button>
          </form>
        </details>
      ) : null}
      {next.includes('failed') ? (
        <details class="inline">
          <summary class="button">Mark failed…</summary>
          <form method="post" action={action} class="stack">
            <Csrf ctx={ctx} />
            <label for="failed-reason">Reason (optional)</label>
            <textarea id="failed-reason" name="reason" rows={2} maxlength={1000} />
            <button type="submit" name="action" value="failed" class="danger">
              {TRANSITIONS.failed.label}
            </button>
          </form>
        </details>
      ) : null}
      {next.includes('canceled') ? (
        <details class="inline">
          <summary class="button">Cancel…</summary>
          <form method="post" action={action} class="stack">
            <Csrf ctx={ctx} />
            <label for="canceled-reason">Reason (optional)</label>
            <textarea id="canceled-reason" name="reason" rows={2} maxlength={1000} />
            <button
              type="submit"
              name="action"
              value="canceled"
              class="danger"
              data-confirm="Cancel this payout? Its commissions become payable again."
            >
              {TRANSITIONS.canceled.label}
            </button>
          </form>
        </details>
      ) : null}
    </div>
  );
}

function PayoutPage({
  ctx,
  payout,
  commissions,
  cursor,
}: {
  ctx: ProgramPageContext;
  payout: PayoutObject;
  commissions: Page<ShownCommission>;
  cursor: Cursor;
}) {
  const program = ctx.program;
  const base = programPath(program, `/payouts/${payout.id}`);
  const who = payout.partner ? partnerName(payout.partner) : payout.partner_id;
  return (
    <Layout ctx={ctx} title={`Payout to ${who}`}>
      <p class="crumbs">
        <a href={programPath(program, '/payouts')}>Payouts</a> /
      </p>
      <div class="page-head">
        <h1>
          {formatMoney(payout.amount, payout.currency)} to {who} <StatusBadge status={payout.status} />
        </h1>
      </div>
      <p class="sub">
        <a href={programPath(program, `/partners/${payout.partner_id}`)}>{payout.partner?.email ?? payout.partner_id}</a> · made{' '}
        {day(payout.created_at)}
        {payout.paid_at ? ` · paid ${day(payout.paid_at)}` : ''}
      </p>
      <TransitionForms ctx={ctx} payout={payout} action={`${base}/status`} />
      <Details payout={payout} />
      <section aria-labelledby="trail-title">
        <h2 id="trail-title">Trail</h2>
        <Trail payout={payout} />
      </section>
      <section aria-labelledby="commissions-title">
        <h2 id="commissions-title">{payout.status === 'paid' ? 'Commissions it paid' : 'Commissions in it'}</h2>
        <CommissionTable
          ctx={ctx}
          rows={commissions.rows}
          showPartner={false}
          empty={
            payout.status === 'failed' || payout.status === 'canceled'
              ? 'None: its commissions went back to payable, for the next payout.'
              : 'None.'
          }
        />
        <Pager page={commissions} base={base} filters={{}} cursor={cursor} />
      </section>
    </Layout>
  );
}
