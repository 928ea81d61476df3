import type { Response, Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { Field, FormRefusal, type Typed, typedText } from '../../pages/fields.js';
import {
  CsvLink,
  DayField,
  FilterForm,
  type ListFilters,
  PickerChoiceLists,
  PickerFields,
  queryOf,
  readListFilters,
  StatusField,
} from '../../pages/filters.js';
import { fromFields, manyValues } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { type Refusal, refusalOf } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { COMMISSION_STATUSES, CommissionUpdate } from '../../resources/commissions/commissions.schema.js';
import {
  CommissionRefused,
  listCommissions,
  MAX_BULK_COMMISSIONS,
  type ShownCommission,
  updateCommissions,
  withStoredFields,
} from '../../resources/commissions/commissions.service.js';
import { calendarDay } from '../../resources/stats/stats.schema.js';
import { CommissionTable, commissionInWords } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { commissionsCsvQuery, createdBetweenDates, csvPath, listPickers } from '../list-filters.js';

/** The list's own filters (the pickers' are read by listPickers); From and To are UTC days, both included. */
const CommissionFilters = z
  .strictObject({
    status: z.enum(COMMISSION_STATUSES).optional(),
    from: calendarDay.optional(),
    to: calendarDay.optional(),
    starting_after: listParams.starting_after,
    ending_before: listParams.ending_before,
  })
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: 'must be on or after the From day', path: ['to'] });
type Filters = z.output<typeof CommissionFilters>;
const FILTER_FIELDS = ['status', 'from', 'to', 'starting_after', 'ending_before'];
const FILTER_LABELS = { status: 'Status', from: 'From', to: 'To' };
const BULK_LABELS = { rejection_reason: 'Reason', ids: 'Commissions', action: 'Action' };

export const commissionNotices = {
  'commissions-approved': 'Commissions approved.',
  'commissions-rejected': 'Commissions rejected.',
};

const BULK_ACTIONS = {
  approve: { status: 'approved', notice: 'commissions-approved' },
  reject: { status: 'rejected', notice: 'commissions-rejected' },
} as const;

/** A refused bulk change, shown above the list again with what was chosen and typed. */
interface BulkRefusal {
  error: unknown;
  chosen: ReadonlySet<string>;
  typed: Typed;
}

export function registerCommissionPages(router: Router, { db, mailer }: AppDeps, contextOf: ContextOf): void {
  /** The list for `query` (the page's address, or a refused bulk form's `back`), with that refusal when there is one. */
  async function showCommissions(res: Response, ctx: ProgramPageContext, query: Record<string, unknown>, bulk?: BulkRefusal) {
    const base = programPath(ctx.program, '/commissions');
    const view = await readListFilters({
      base,
      query,
      ...listPickers(db, ctx, ['partner', 'customer'], query),
      schema: CommissionFilters,
      fields: FILTER_FIELDS,
      labels: FILTER_LABELS,
      keep: (f) => ({ status: f.status, from: f.from, to: f.to }),
    });
    if (view.moved && !bulk) return res.redirect(303, view.moved);
    const f = view.filters;
    const page =
      view.ready && f
        ? await withStoredFields(
            db,
            await listCommissions(db, ctx.user.organization_id, {
              program_id: ctx.program.id,
              status: f.status,
              partner_id: view.kept.partner_id,
              customer_id: view.kept.customer_id,
              ...createdBetweenDates(f),
              starting_after: f.starting_after,
              ending_before: f.ending_before,
              limit: 50,
              expand: ['partner', 'customer'],
            }),
          )
        : null;
    const refused = bulk ? bulkRefusal(bulk.error, page?.rows ?? [], ctx) : null;
    sendPage(
      res,
      <CommissionsPage ctx={ctx} view={view} page={page} bulk={bulk && refused ? { ...bulk, refusal: refused } : undefined} />,
      refused?.status ?? view.refusal?.status ?? 200,
    );
  }

  router.get('/programs/:programId/commissions', async (req, res) => {
    const ctx = await contextOf(res, 'commissions', req.params.programId);
    await showCommissions(res, ctx, req.query);
  });

  router.post('/programs/:programId/commissions/bulk', async (req, res) => {
    const ctx = await contextOf(res, 'commissions', req.params.programId);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const back = typeof body.back === 'string' && body.back.startsWith('?') ? body.back : '?';
    const ids = manyValues(body.ids);
    try {
      const action = Object.hasOwn(BULK_ACTIONS, String(body.action)) ? BULK_ACTIONS[body.action as keyof typeof BULK_ACTIONS] : null;
      if (!action) throw badRequest('Choose approve or reject', 'action');
      // The reason goes with a rejection only (an approval clears any); left empty, it is not given.
      const fields = action.status === 'rejected' ? ['status', 'rejection_reason'] : ['status'];
      const input = fromFields(CommissionUpdate, { ...body, status: action.status }, fields, 'body');
      await updateCommissions(db, ctx.user.organization_id, ctx.program.id, ids, input, mailer.kick);
      const params = new URLSearchParams(back.slice(1));
      params.set('notice', action.notice);
      res.redirect(303, programPath(ctx.program, `/commissions?${params}`));
    } catch (error) {
      // Nothing changed (all or none): the same list again, what was chosen and typed kept, the refusal at its top.
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      await showCommissions(res, ctx, Object.fromEntries(new URLSearchParams(back.slice(1))), {
        error,
        chosen: new Set(ids),
        typed: body,
      });
    }
  });
}

/**
 * A refused bulk change in words. The service names the commission that could not change
 * (`CommissionRefused`): here it is described as the list shows it, and the ids its refusal
 * names are left out of the sentence. A chosen commission that is gone (deleted since the page
 * was shown) is the form's problem, not a missing page.
 */
function bulkRefusal(error: unknown, rows: ShownCommission[], ctx: ProgramPageContext): Refusal {
  if (error instanceof ApiError && error.type === 'not_found_error') {
    return {
      message:
        'One of the chosen commissions is no longer there (it was deleted since this page was shown). Nothing was changed: choose again.',
      status: error.status,
    };
  }
  if (!(error instanceof CommissionRefused)) return refusalOf(error, BULK_LABELS);
  const refusal = refusalOf(error.refusal, BULK_LABELS);
  const row = rows.find((r) => r.id === error.commissionId);
  const who = row ? commissionInWords(row, ctx.program.currency_code) : 'one of the chosen commissions';
  const why = refusal.message.replace(/[Cc]ommission '?comm_[A-Za-z0-9]+'?/g, 'it').replace(/payout '?po_[A-Za-z0-9]+'?/g, 'a payout');
  return { ...refusal, message: `Nothing was changed: ${who} cannot change. ${why.charAt(0).toUpperCase()}${why.slice(1)}` };
}

function CommissionsPage({
  ctx,
  view,
  page,
  bulk,
}: {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  page: Page<ShownCommission> | null;
  bulk?: BulkRefusal & { refusal: Refusal };
}) {
  const base = programPath(ctx.program, '/commissions');
  const { kept, typed } = view;
  const filtered = Object.values(kept).some(Boolean);
  return (
    <Layout ctx={ctx} title="Commissions">
      <div class="page-head">
        <h1>Commissions</h1>
        {page ? <CsvLink href={csvPath(ctx.program, 'commissions', commissionsCsvQuery(kept))} /> : null}
      </div>
      <FormRefusal refusal={bulk?.refusal} fields={['rejection_reason']} />
      <FilterForm action={base} label="Filter commissions" filtered={filtered}>
        <StatusField statuses={COMMISSION_STATUSES} view={view} />
        <PickerFields view={view} />
        <DayField name="from" label="From" value={typed.from} refusal={view.refusal} />
        <DayField name="to" label="To" value={typed.to} refusal={view.refusal} />
      </FilterForm>
      <PickerChoiceLists view={view} />
      {page === null ? null : page.rows.length === 0 ? (
        <p class="empty">
          {filtered
            ? 'No commission matches these filters.'
            : 'No commissions yet: they are made when a referred customer pays (POST /v1/transactions, or Stripe).'}
        </p>
      ) : (
        <>
          <form id="bulk" method="post" action={`${base}/bulk`} class="bulk">
            <Csrf ctx={ctx} />
            <input type="hidden" name="back" value={`?${queryOf(kept)}`} />
            <span>With the chosen commissions (up to {MAX_BULK_COMMISSIONS}):</span>
            <button type="submit" name="action" value="approve" class="primary">
              Approve
            </button>
            <Field
              name="rejection_reason"
              id="rejection-reason"
              label="Reason (shown to the partner)"
              maxlength={2000}
              placeholder="Optional, for a rejection"
              value={typedText(bulk?.typed, 'rejection_reason')}
              refusal={bulk?.refusal}
            />
            <button type="submit" name="action" value="reject" class="danger">
              Reject
            </button>
          </form>
          <CommissionTable ctx={ctx} rows={page.rows} bulkForm="bulk" chosen={bulk?.chosen} showPartner />
        </>
      )}
      {page ? <Pager page={page} base={base} filters={kept} cursor={view.filters as Cursor} /> : null}
    </Layout>
  );
}
