import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response, Router } from 'express';
import { z } from 'zod';
import type { PartnerRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { badRequest, notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal, SelectField, TextareaField, type Typed, typedText } from '../../pages/fields.js';
import {
  CsvLink,
  DayField,
  FilterForm,
  type ListFilters,
  PickerChoiceLists,
  PickerFields,
  readListFilters,
  StatusField,
} from '../../pages/filters.js';
import { count, day, partnerName, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { RecordId } from '../../pages/record-id.js';
import { type FieldLabels, type Refusal, refusalOf } from '../../pages/refusal.js';
import { type Children, sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { Tabs } from '../../pages/tabs.js';
import { type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import { partnersByIds } from '../../resources/partners/partners.service.js';
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
  type MoneyUnderReview,
  moneyUnderReviewInPayouts,
  NEXT_STATUSES,
  retrievePayout,
  updatePayout,
} from '../../resources/payouts/payouts.service.js';
import { calendarDay } from '../../resources/stats/stats.schema.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { csvPath, listPickers, payoutsCsvQuery } from '../list-filters.js';
import { heldWords, riskPath } from '../risk-words.js';

/**
 * The program's payouts (ingest/docs/payouts.md): who is owed what, generating a batch, the payouts
 * and their transitions, and the batch files. Every rule is the payouts service's: this page
 * only reads forms through the API's schemas and shows what the service answers; a form it
 * refuses comes back with what was typed and the reason beside its field.
 */

const PAGE_SIZE = 25;

export const payoutNotices: Record<string, string> = {
  'payout-processing': 'Payout marked processing: refunds no longer change it.',
  'payout-paid': 'Payout marked paid: its commissions are paid.',
  'payout-failed': 'Payout marked failed: its commissions are payable again.',
  'payout-canceled': 'Payout canceled: its commissions are payable again.',
};

/** What each button of a payout page asks the service for, the notice after it, and the field its form shows. */
const TRANSITIONS = {
  processing: { label: 'Mark processing', notice: 'payout-processing', field: 'reference' },
  paid: { label: 'Mark paid', notice: 'payout-paid', field: 'reference' },
  failed: { label: 'Mark failed', notice: 'payout-failed', field: 'reason' },
  canceled: { label: 'Cancel payout', notice: 'payout-canceled', field: 'reason' },
} as const satisfies Partial<Record<PayoutStatus, { label: string; notice: string; field: 'reference' | 'reason' }>>;
type Transition = keyof typeof TRANSITIONS;
const isTransition = (action: unknown): action is Transition => typeof action === 'string' && Object.hasOwn(TRANSITIONS, action);

const PayoutFilters = z.strictObject({
  status: z.enum(PAYOUT_STATUSES).optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof PayoutFilters>;
const FILTER_FIELDS = ['status', 'starting_after', 'ending_before'];

const PageCursor = z.strictObject({ starting_after: listParams.starting_after, ending_before: listParams.ending_before });

/** The generate form: a UTC day, whose end is the cut-off the service takes. */
const GenerateForm = z.strictObject({ up_to_day: calendarDay.optional() });

/** What each form's fields are called on the page, by the parameter they set. */
const LABELS = {
  filters: { status: 'Status' },
  generate: { up_to_day: 'Commissions made up to' },
  export: { format: 'File', status: 'Payouts that are', currency: 'Currency' },
  transition: { reference: 'Reference', reason: 'Reason' },
} satisfies Record<string, FieldLabels>;

const FORMAT_NAMES: Record<(typeof EXPORT_FORMATS)[number], string> = { paypal: 'PayPal', wise: 'Wise', csv: 'CSV' };

/** A form shown again after a refusal: which one, why, and what was typed. */
interface RefusedForm<Form extends string> {
  form: Form;
  refusal: Refusal;
  typed: Typed;
}
type ListForm = RefusedForm<'generate' | 'export'>;

/**
 * Why a generation left a partner out, in words: the reason payoutReadiness gave (payouts/payout-readiness.ts).
 * Money held by open risk events links to those events (ingest/docs/dashboard.md#risk).
 */
function skipReason(s: GenerateResultObject['skipped'][number], method: string | undefined, program: { id: string }): Children {
  if (s.reason === 'on_hold') {
    return (
      <>
        {`${formatMoney(s.amount, s.currency)} held by open risk events until you resolve them: `}
        <a href={riskPath(program, { partner_id: s.partner_id })}>review them on the Risk page</a>.
      </>
    );
  }
  const reasons: Record<Exclude<NotReadyReason, 'on_hold'>, string> = {
    below_minimum: `Below the minimum payout of ${formatMoney(s.minimum_payout, s.currency)}: stays payable for a later payout.`,
    no_payout_method: 'No payout method yet: ask the partner to choose one (PayPal, Wise, bank …).',
    missing_payout_details: `Paid by ${method ?? 'PayPal or Wise'} but without the e-mail address the batch file needs: ask the partner for it.`,
    negative_balance: 'Owes money after refunds: carried forward, so their next payout is smaller.',
    nothing_owed: 'Nothing owed: their refunds equal what they earned.',
    partner_deleted: 'The partner was deleted.',
  };
  return reasons[s.reason];
}

/**
 * A refused export in words. The service names (some of) the payouts a file cannot hold by their
 * ids ("… cannot be in the file: po_…, po_…"), which mean nothing beside a field: they are left out.
 */
function exportRefusal(err: unknown): Refusal {
  const refusal = refusalOf(err, LABELS.export);
  return { ...refusal, message: refusal.message.replace(/: (?:po_[A-Za-z0-9]+(?:, )?)+\.$/, '.') };
}

/** A partner named where its id would otherwise stand: a deleted one is not expanded. */
const nameOrDeleted = (partner: { first_name: string; last_name: string; email: string } | null | undefined) =>
  partner ? partnerName(partner) : 'A deleted partner';

export function registerPayoutsPages(router: Router, { db, mailer }: AppDeps, contextOf: ContextOf): void {
  /** The payouts for `query`, with a refused form of the section (generate, export) open again when there is one. */
  async function showPayouts(res: Response, ctx: ProgramPageContext, query: Record<string, unknown>, refused?: ListForm) {
    const view = await readListFilters({
      base: programPath(ctx.program, '/payouts'),
      query,
      ...listPickers(db, ctx, ['partner'], query),
      schema: PayoutFilters,
      fields: FILTER_FIELDS,
      labels: LABELS.filters,
      keep: (f) => ({ status: f.status }),
    });
    if (view.moved && !refused) return res.redirect(303, view.moved);
    const f = view.filters;
    const page =
      view.ready && f
        ? await listPayouts(db, ctx.user.organization_id, {
            ...f,
            program_id: ctx.program.id,
            partner_id: view.kept.partner_id,
            limit: PAGE_SIZE,
            expand: ['partner'],
          })
        : null;
    const underReview = page && page.rows.length > 0 ? await moneyUnderReviewInPayouts(db, { programId: ctx.program.id }) : new Map();
    sendPage(
      res,
      <PayoutListPage ctx={ctx} view={view} page={page} underReview={underReview} refused={refused} />,
      refused?.refusal.status ?? view.refusal?.status,
    );
  }

  router.get('/programs/:programId/payouts', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    await showPayouts(res, ctx, req.query);
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
    let result: GenerateResultObject;
    try {
      const form = fromFields(GenerateForm, req.body, ['up_to_day'], 'body');
      const input = fromFields(
        PayoutGenerate,
        { program_id: ctx.program.id, up_to: form.up_to_day ? `${form.up_to_day}T23:59:59.999Z` : undefined },
        ['program_id', 'up_to'],
        'body',
      );
      result = await generateProgramPayouts(db, ctx.user.organization_id, input);
    } catch (err) {
      return showPayouts(res, ctx, {}, { form: 'generate', refusal: refusalOf(err, LABELS.generate), typed: req.body });
    }
    const partners = await partnersByIds(
      db,
      ctx.user.organization_id,
      [...result.payouts, ...result.skipped].map((r) => r.partner_id),
    );
    sendPage(res, <GeneratedPage ctx={ctx} result={result} partners={partners} />);
  });

  // Before /payouts/:payoutId, which would take "export" for an id.
  router.get('/programs/:programId/payouts/export', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    let file: ReturnType<typeof payoutFile>;
    try {
      const query = fromFields(
        PayoutExportQuery,
        { ...req.query, program_id: ctx.program.id },
        ['program_id', 'format', 'status', 'currency'],
        'query',
      );
      file = payoutFile(await exportPayouts(db, ctx.user.organization_id, query));
    } catch (err) {
      // Refused before anything is sent: the payouts again, the export form open with what was chosen.
      return showPayouts(res, ctx, {}, { form: 'export', refusal: exportRefusal(err), typed: req.query });
    }
    // What GET /v1/payouts/export sends (payouts.routes.ts), byte for byte.
    res.status(200).type(PAYOUT_FILE_TYPE).attachment(file.filename);
    await pipeline([Readable.from(file.body), ...file.through, res]);
  });

  /** A payout's page, with a refused transition's form open again when there is one. */
  async function showPayout(res: Response, ctx: ProgramPageContext, payout: PayoutObject, query: unknown, refused?: RefusedForm<string>) {
    const cursor = fromFields(PageCursor, query, ['starting_after', 'ending_before'], 'query');
    const [commissions, underReview] = await Promise.all([
      listPayoutCommissions(db, ctx.user.organization_id, payout.id, { ...cursor, limit: 50 }, ['customer']).then((page) =>
        withStoredFields(db, page),
      ),
      moneyUnderReviewInPayouts(db, { programId: payout.program_id, partnerId: payout.partner_id }),
    ]);
    sendPage(
      res,
      <PayoutPage
        ctx={ctx}
        payout={payout}
        commissions={commissions}
        cursor={cursor}
        underReview={underReview.get(payout.id)}
        refused={refused}
      />,
      refused?.refusal.status,
    );
  }

  router.get('/programs/:programId/payouts/:payoutId', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    await showPayout(res, ctx, await programPayout(ctx, req.params.payoutId), req.query);
  });

  router.post('/programs/:programId/payouts/:payoutId/status', async (req, res) => {
    const ctx = await contextOf(res, 'payouts', req.params.programId);
    const payout = await programPayout(ctx, req.params.payoutId);
    const action = req.body?.action;
    try {
      if (!isTransition(action)) throw badRequest('Choose processing, paid, failed or canceled', 'action');
      const input = fromFields(PayoutUpdate, { ...req.body, status: action }, ['status', 'reference', 'reason'], 'body');
      await updatePayout(db, ctx.user.organization_id, payout.id, input, mailer.kick);
    } catch (err) {
      return showPayout(res, ctx, payout, {}, { form: String(action), refusal: refusalOf(err, LABELS.transition), typed: req.body });
    }
    res.redirect(303, programPath(ctx.program, `/payouts/${payout.id}?notice=${TRANSITIONS[action as Transition].notice}`));
  });

  /** The payout of the program in the URL, its partner expanded; another program's or organization's is a 404. */
  async function programPayout(ctx: ProgramPageContext, payoutId: string): Promise<PayoutObject> {
    const payout = await retrievePayout(db, ctx.user.organization_id, payoutId, ['partner']);
    if (payout.program_id !== ctx.program.id) throw notFound('payout', payoutId);
    return payout;
  }
}

/** The head of the section's two views: the minimum, the actions (generate, export) and the tabs. */
function SectionHead({
  ctx,
  current,
  refused,
  csv,
}: {
  ctx: ProgramPageContext;
  current: 'payouts' | 'balances';
  refused?: ListForm;
  /** The list's CSV download, with its filters. */
  csv?: string;
}) {
  const program = ctx.program;
  return (
    <>
      <div class="page-head">
        <h1>Payouts</h1>
        {csv ? <CsvLink href={csv} /> : null}
      </div>
      <p class="muted">
        {program.minimum_payout > 0
          ? `Minimum payout: ${formatMoney(program.minimum_payout, program.currency_code)} (the program's; a group may set its own). `
          : 'No minimum payout: every partner owed something is paid (a group may set a minimum). '}
        <a href={programPath(program, '/settings')}>Change it in the program's settings.</a>
      </p>
      <div class="actions">
        <GenerateAction ctx={ctx} refused={refused?.form === 'generate' ? refused : undefined} />
        <ExportAction ctx={ctx} refused={refused?.form === 'export' ? refused : undefined} />
      </div>
      <Tabs
        label="Payouts views"
        tabs={[
          { href: programPath(program, '/payouts'), label: 'Payouts', current: current === 'payouts' },
          { href: programPath(program, '/payouts/balances'), label: 'Balances', current: current === 'balances' },
        ]}
      />
    </>
  );
}

/** Generate, with an optional cut-off day (ISO, as every date of the pages). */
function GenerateAction({ ctx, refused }: { ctx: ProgramPageContext; refused?: ListForm }) {
  return (
    <details class="add" open={refused !== undefined}>
      <summary class="button primary">Generate payouts</summary>
      <form method="post" action={programPath(ctx.program, '/payouts/generate')} class="stack">
        <Csrf ctx={ctx} />
        <p class="muted">
          One payout per partner of their approved commissions not yet in a payout, when it reaches their minimum and they have a payout
          method.
        </p>
        <FormRefusal refusal={refused?.refusal} fields={['up_to_day']} />
        <DayField
          name="up_to_day"
          label="Commissions made up to this UTC day, if any"
          value={typedText(refused?.typed, 'up_to_day')}
          refusal={refused?.refusal}
        />
        <button type="submit" class="primary">
          Generate payouts
        </button>
      </form>
    </details>
  );
}

/** A batch file of the program's payouts, as GET /v1/payouts/export sends it. */
function ExportAction({ ctx, refused }: { ctx: ProgramPageContext; refused?: ListForm }) {
  const refusal = refused?.refusal;
  return (
    <details class="add" open={refused !== undefined}>
      <summary class="button">Export a batch file</summary>
      <form method="get" action={programPath(ctx.program, '/payouts/export')} class="stack">
        <FormRefusal refusal={refusal} fields={['format', 'status', 'currency']} />
        <SelectField
          name="format"
          id="export-format"
          label="File"
          value={typedText(refused?.typed, 'format', 'paypal')}
          options={[
            ['paypal', 'PayPal Payouts (the PayPal payouts)'],
            ['wise', 'Wise batch payment (the Wise payouts)'],
            ['csv', 'CSV (every payout, all fields)'],
          ]}
          refusal={refusal}
        />
        <SelectField
          name="status"
          id="export-status"
          label="Payouts that are"
          value={typedText(refused?.typed, 'status', 'pending')}
          options={PAYOUT_STATUSES.map((s) => [s, s] as const)}
          refusal={refusal}
        />
        <Field
          name="currency"
          id="export-currency"
          label="Currency (optional; a PayPal file holds one)"
          value={typedText(refused?.typed, 'currency')}
          maxlength={3}
          placeholder={ctx.program.currency_code}
          autocomplete="off"
          refusal={refusal}
        />
        <button type="submit">Download</button>
      </form>
    </details>
  );
}

/**
 * The status of the payouts whose batch file the list offers: the filtered status (pending
 * without a filter) while it is one a file is paid from, else none.
 */
function batchStatusOf(status: string | undefined): 'pending' | 'processing' | null {
  const shown = status ?? 'pending';
  return shown === 'pending' || shown === 'processing' ? shown : null;
}

/** The batch files of these payouts, one link per format. */
function FileLinks({ href, children }: { href: (format: string) => string; children: string }) {
  return (
    <p class="row">
      <span>{children}</span>
      {EXPORT_FORMATS.map((f) => (
        <a class="button" href={href(f)}>
          {`${FORMAT_NAMES[f]} file`}
        </a>
      ))}
    </p>
  );
}

/** The payouts list: `page` is null while its filters are refused or a partner is being chosen. */
interface PayoutListProps {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  page: Page<PayoutObject> | null;
  /** The money of the program's unpaid payouts that open risk events hold, by payout (moneyUnderReviewInPayouts). */
  underReview: ReadonlyMap<string, MoneyUnderReview>;
  refused?: ListForm;
}

function PayoutListPage({ ctx, view, page, underReview, refused }: PayoutListProps) {
  const program = ctx.program;
  const base = programPath(program, '/payouts');
  const { kept } = view;
  const filtered = Boolean(kept.status || kept.partner_id);
  const fileStatus = batchStatusOf(kept.status);
  // The batch file pays every payout of its status, on this page or not.
  const batchUnderReview = [...underReview.values()].filter((held) => held.status === fileStatus).length;
  return (
    <Layout ctx={ctx} title="Payouts">
      <SectionHead
        ctx={ctx}
        current="payouts"
        refused={refused}
        csv={page ? csvPath(program, 'payouts', payoutsCsvQuery(kept)) : undefined}
      />
      <FilterForm action={base} label="Filter payouts" filtered={filtered}>
        <StatusField statuses={PAYOUT_STATUSES} view={view} />
        <PickerFields view={view} />
      </FilterForm>
      <PickerChoiceLists view={view} />
      {page === null ? null : page.rows.length === 0 ? (
        <p class="empty">
          {filtered
            ? `No ${kept.status ? `${kept.status} ` : ''}payout matches this filter.`
            : 'No payouts yet. Approve commissions on the Commissions page, then "Generate payouts" groups what each partner is owed into one payout.'}
        </p>
      ) : (
        <>
          {fileStatus ? (
            <FileLinks href={(format) => `${base}/export?${new URLSearchParams({ format, status: fileStatus })}`}>
              {`The ${fileStatus} payouts as a batch file:`}
            </FileLinks>
          ) : null}
          {batchUnderReview > 0 ? (
            <p class="under-review">
              <strong>{`${count(batchUnderReview)} of the ${fileStatus} payouts ${batchUnderReview === 1 ? 'holds' : 'hold'} money under review`}</strong>
              {` (marked "Under review"): the batch file pays ${batchUnderReview === 1 ? 'it' : 'them'} whole. Open ${batchUnderReview === 1 ? 'it' : 'each'} and cancel ${batchUnderReview === 1 ? 'it' : 'them'} before you pay the file to hold that money back.`}
            </p>
          ) : null}
          <DataTable
            caption="Payouts"
            rows={page.rows}
            empty=""
            columns={[
              { head: 'Created', cell: (p) => <a href={`${base}/${p.id}`}>{day(p.created_at)}</a> },
              {
                head: 'Partner',
                cell: (p) =>
                  p.partner ? (
                    <a href={programPath(program, `/partners/${p.partner_id}`)}>{partnerName(p.partner)}</a>
                  ) : (
                    nameOrDeleted(null)
                  ),
              },
              { head: 'Method', cell: (p) => p.payout_method },
              {
                head: 'Status',
                cell: (p) => {
                  const held = underReview.get(p.id);
                  return (
                    <>
                      <StatusBadge status={p.status} />{' '}
                      {held ? (
                        <a class="badge badge-flagged" href={`${base}/${p.id}`}>
                          {`Under review: ${heldWords([held])}`}
                        </a>
                      ) : null}
                    </>
                  );
                },
              },
              { head: 'Amount', numeric: true, cell: (p) => formatMoney(p.amount, p.currency) },
              { head: 'Commissions', numeric: true, cell: (p) => count(p.commission_count) },
              { head: 'Reference', cell: (p) => p.reference ?? '—' },
            ]}
          />
        </>
      )}
      {page ? <Pager page={page} base={base} filters={kept} cursor={view.filters as Cursor} /> : null}
    </Layout>
  );
}

/** A partner's balance in one currency, a row of the balances table (a partner without commissions has one, without amounts). */
interface BalanceRow {
  balance: BalanceObject;
  amounts: BalanceObject['amounts'][number] | null;
}

function BalancesPage({ ctx, page, cursor }: { ctx: ProgramPageContext; page: Page<BalanceObject>; cursor: Cursor }) {
  const program = ctx.program;
  const base = programPath(program, '/payouts/balances');
  const owed = page.rows.some((b) => b.amounts.length > 0);
  const rows = page.rows.flatMap((balance): BalanceRow[] =>
    balance.amounts.length === 0 ? [{ balance, amounts: null }] : balance.amounts.map((amounts) => ({ balance, amounts })),
  );
  const money = (pick: (a: NonNullable<BalanceRow['amounts']>) => number) => (r: BalanceRow) =>
    r.amounts ? formatMoney(pick(r.amounts), r.amounts.currency) : '—';
  return (
    <Layout ctx={ctx} title="Balances">
      <SectionHead ctx={ctx} current="balances" />
      <h2>Balances</h2>
      <p class="muted">
        Per partner and currency: pending (not yet approved), payable (approved, in no payout: what the next payout pays, net of refunds),
        on hold (held by open <a href={riskPath(program)}>risk events</a> until you resolve them, in neither of those), in payouts (not paid
        yet) and paid.
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
          <DataTable
            caption="Balances"
            rows={rows}
            empty=""
            columns={[
              {
                head: 'Partner',
                cell: ({ balance: b, amounts }) => (
                  <>
                    <a href={programPath(program, `/partners/${b.partner_id}`)}>{nameOrDeleted(b.partner)}</a>
                    {b.partner ? <span class="sub">{b.partner.email}</span> : null}
                    {amounts ? null : <span class="sub">No commissions yet</span>}
                  </>
                ),
              },
              { head: 'Payout method', cell: ({ balance: b }) => (b.payout_method === 'none' ? 'none yet' : b.payout_method) },
              {
                head: 'Minimum',
                numeric: true,
                cell: ({ balance: b, amounts }) => formatMoney(b.minimum_payout, amounts?.currency ?? program.currency_code),
              },
              { head: 'Currency', cell: ({ amounts }) => amounts?.currency ?? '—' },
              { head: 'Pending', numeric: true, cell: money((a) => a.pending) },
              { head: 'Payable', numeric: true, cell: money((a) => a.payable) },
              { head: 'On hold', numeric: true, cell: money((a) => a.on_hold) },
              { head: 'In payouts', numeric: true, cell: money((a) => a.in_payouts) },
              { head: 'Paid', numeric: true, cell: money((a) => a.paid) },
            ]}
          />
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
  partners,
}: {
  ctx: ProgramPageContext;
  result: GenerateResultObject;
  partners: ReadonlyMap<string, PartnerRow>;
}) {
  const program = ctx.program;
  const base = programPath(program, '/payouts');
  const nameOf = (id: string) => nameOrDeleted(partners.get(id));
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
        <DataTable
          caption="Payouts made"
          rows={result.payouts}
          empty={
            result.skipped.length === 0
              ? 'Nobody is owed anything: there are no approved commissions that are not in a payout yet. Approve commissions on the Commissions page first.'
              : 'Every partner owed something was left out, for the reasons below.'
          }
          columns={[
            { head: 'Partner', cell: (p) => <a href={`${base}/${p.id}`}>{nameOf(p.partner_id)}</a> },
            { head: 'Amount', numeric: true, cell: (p) => formatMoney(p.amount, p.currency) },
            { head: 'Commissions', numeric: true, cell: (p) => count(p.commission_count) },
          ]}
        />
        {result.payouts.length === 0 ? null : (
          <FileLinks href={(format) => `${base}/export?format=${format}`}>
            Next: pay them with a batch file, then mark each payout paid.
          </FileLinks>
        )}
      </section>
      {result.skipped.length > 0 ? (
        <section aria-labelledby="skipped-title">
          <h2 id="skipped-title">{`${count(result.skipped.length)} left out`}</h2>
          <DataTable
            caption="Partners left out"
            rows={result.skipped}
            empty=""
            columns={[
              { head: 'Partner', cell: (s) => <a href={programPath(program, `/partners/${s.partner_id}`)}>{nameOf(s.partner_id)}</a> },
              { head: 'Owed', numeric: true, cell: (s) => formatMoney(s.amount, s.currency) },
              { head: 'Why', cell: (s) => skipReason(s, partners.get(s.partner_id)?.payout_method, program) },
            ]}
          />
        </section>
      ) : null}
      <p>
        <a href={base}>Back to the payouts</a>
      </p>
    </Layout>
  );
}

/** The payout's details as a list of rows (details of the partner's payout method as they were), and its id to copy. */
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
          <RecordId id={payout.id} />
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

/** How each transition's form reads: the summary that opens it, its one field, its button. */
const TRANSITION_FORMS: Record<
  Transition,
  {
    summary: string;
    hint?: string;
    label: string;
    className?: string;
    confirm?: (amount: string, underReview: MoneyUnderReview | undefined) => string;
  }
> = {
  processing: {
    summary: 'Mark processing…',
    hint: "When the file is at PayPal, Wise or the bank: refunds from now on lower the partner's next payout instead.",
    label: 'Batch reference (optional)',
  },
  paid: {
    summary: 'Mark paid…',
    label: 'Payment reference (optional: the PayPal, Wise or bank transaction id)',
    className: 'primary',
    confirm: (amount, underReview) =>
      `Mark ${amount} paid?${underReview ? ` ${heldWords([underReview])} of it is under review.` : ''} Its commissions become paid; this cannot be undone.`,
  },
  failed: { summary: 'Mark failed…', label: 'Reason (optional)', className: 'danger' },
  canceled: {
    summary: 'Cancel…',
    label: 'Reason (optional)',
    className: 'danger',
    confirm: () => 'Cancel this payout? Its commissions become payable again.',
  },
};

/**
 * A form per transition the service allows from this status (NEXT_STATUSES); none for a final
 * payout. A refused one is open again with what was typed, its reason beside the field, or above
 * the forms when it names none (a payout that changed since the page was shown).
 */
function TransitionForms({
  ctx,
  payout,
  action,
  underReview,
  refused,
}: {
  ctx: ProgramPageContext;
  payout: PayoutObject;
  action: string;
  /** Its money under review: Mark paid's confirmation says it too, and the button is described by the note. */
  underReview: MoneyUnderReview | undefined;
  refused?: RefusedForm<string>;
}) {
  const next = NEXT_STATUSES[payout.status].filter(isTransition);
  const open = refused && isTransition(refused.form) && next.includes(refused.form) ? refused.form : undefined;
  const top = <FormRefusal refusal={refused?.refusal} fields={open ? [TRANSITIONS[open].field] : []} />;
  if (next.length === 0) {
    return (
      <>
        {top}
        <p class="muted">A {payout.status} payout is final: it cannot change.</p>
      </>
    );
  }
  const amount = formatMoney(payout.amount, payout.currency);
  return (
    <>
      {top}
      <div class="actions">
        {next.map((to) => {
          const words = TRANSITION_FORMS[to];
          const field = TRANSITIONS[to].field;
          const shown = open === to ? refused : undefined;
          const value = typedText(shown?.typed, field, field === 'reference' ? (payout.reference ?? '') : '');
          return (
            <details class="inline" open={shown !== undefined}>
              <summary class={`button${to === 'paid' ? ' primary' : ''}`}>{words.summary}</summary>
              <form method="post" action={action} class="stack">
                <Csrf ctx={ctx} />
                {words.hint ? <p class="muted">{words.hint}</p> : null}
                {field === 'reference' ? (
                  <Field
                    name="reference"
                    id={`${to}-reference`}
                    label={words.label}
                    maxlength={255}
                    value={value}
                    refusal={shown?.refusal}
                  />
                ) : (
                  <TextareaField
                    name="reason"
                    id={`${to}-reason`}
                    label={words.label}
                    rows={2}
                    maxlength={1000}
                    value={value}
                    refusal={shown?.refusal}
                  />
                )}
                <button
                  type="submit"
                  name="action"
                  value={to}
                  class={words.className}
                  data-confirm={words.confirm?.(amount, underReview)}
                  aria-describedby={to === 'paid' && underReview ? UNDER_REVIEW_ID : undefined}
                >
                  {TRANSITIONS[to].label}
                </button>
              </form>
            </details>
          );
        })}
      </div>
    </>
  );
}

/** The id of a payout page's note of its money under review, which the Mark paid button is described by. */
const UNDER_REVIEW_ID = 'under-review';

/**
 * An unpaid payout holding money that an open risk event concerns (an event raised after the
 * payout took it; ingest/docs/risk.md#held-money): said before the transitions, so that it is
 * read before the payout is marked paid, with the one way to hold the money back. The order
 * matters: a rejection or a ban leaves money in a payout alone, and resolves the event, after
 * which nothing holds it.
 */
function UnderReview({ program, payout, held }: { program: { id: string }; payout: PayoutObject; held: MoneyUnderReview }) {
  const it = held.commissions === 1 ? 'it' : 'them';
  return (
    <p class="under-review" id={UNDER_REVIEW_ID}>
      <strong>{`Under review: ${heldWords([held])} of this payout.`}</strong>
      {` An open risk event, raised after the payout was made, concerns ${it}. To hold ${it} back, cancel this payout before you decide on the event`}
      {payout.status === 'processing' ? ', once you have stopped its payment at PayPal, Wise or the bank (it is processing)' : ''}
      {`: rejecting ${it} or banning the partner does not take back money in a payout, and resolves the event. Once canceled, what is under review stays on hold until you decide, and the rest of the payout is paid by the next generation. `}
      <a href={riskPath(program, { partner_id: payout.partner_id })}>Review the partner's events on the Risk page</a>.
    </p>
  );
}

function PayoutPage({
  ctx,
  payout,
  commissions,
  cursor,
  underReview,
  refused,
}: {
  ctx: ProgramPageContext;
  payout: PayoutObject;
  commissions: Page<ShownCommission>;
  cursor: Cursor;
  /** Its money that open risk events hold (moneyUnderReviewInPayouts), if any. */
  underReview: MoneyUnderReview | undefined;
  refused?: RefusedForm<string>;
}) {
  const program = ctx.program;
  const base = programPath(program, `/payouts/${payout.id}`);
  const who = nameOrDeleted(payout.partner);
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
        {payout.partner ? <a href={programPath(program, `/partners/${payout.partner_id}`)}>{payout.partner.email}</a> : null}
        {payout.partner ? ' · ' : ''}made {day(payout.created_at)}
        {payout.paid_at ? ` · paid ${day(payout.paid_at)}` : ''}
      </p>
      {underReview ? <UnderReview program={program} payout={payout} held={underReview} /> : null}
      <TransitionForms ctx={ctx} payout={payout} action={`${base}/status`} underReview={underReview} refused={refused} />
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
