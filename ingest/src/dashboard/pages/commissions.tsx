import type { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { badRequest } from '../../http/errors.js';
import { idField } from '../../http/fields.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { day, partnerName } from '../../pages/format.js';
import { fromFields, manyValues } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import { COMMISSION_STATUSES, type CommissionObject, CommissionUpdate } from '../../resources/commissions/commissions.schema.js';
import {
  listCommissions,
  MAX_BULK_COMMISSIONS,
  type ShownCommission,
  updateCommissions,
  withStoredFields,
} from '../../resources/commissions/commissions.service.js';
import { requireProgramPartner } from '../../resources/partners/partners.service.js';
import { calendarDay } from '../../resources/stats/stats.schema.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';

const CommissionFilters = z.strictObject({
  status: z.enum(COMMISSION_STATUSES).optional(),
  partner_id: idField.optional(),
  from: calendarDay.optional(),
  to: calendarDay.optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof CommissionFilters>;

export const commissionNotices = {
  'commissions-approved': 'Commissions approved.',
  'commissions-rejected': 'Commissions rejected.',
};

const BULK_ACTIONS = {
  approve: { status: 'approved', notice: 'commissions-approved' },
  reject: { status: 'rejected', notice: 'commissions-rejected' },
} as const;

export function registerCommissionPages(router: Router, { db, mailer }: AppDeps, contextOf: ContextOf): void {
  router.get('/programs/:programId/commissions', async (req, res) => {
    const ctx = await contextOf(res, 'commissions', req.params.programId);
    const filters = fromFields(
      CommissionFilters,
      req.query,
      ['status', 'partner_id', 'from', 'to', 'starting_after', 'ending_before'],
      'query',
    );
    const page = await withStoredFields(
      db,
      await listCommissions(db, ctx.user.organization_id, {
        program_id: ctx.program.id,
        status: filters.status,
        partner_id: filters.partner_id,
        created_gte: filters.from ? new Date(`${filters.from}T00:00:00.000Z`) : undefined,
        created_lte: filters.to ? new Date(`${filters.to}T23:59:59.999Z`) : undefined,
        starting_after: filters.starting_after,
        ending_before: filters.ending_before,
        limit: 50,
        expand: ['partner', 'customer'],
      }),
    );
    // The filter's partner must be one of the program's (404 otherwise), as on the other lists.
    if (filters.partner_id) await requireProgramPartner(db, ctx.user.organization_id, ctx.program.id, filters.partner_id);
    sendPage(res, <CommissionsPage ctx={ctx} page={page} filters={filters} />);
  });

  router.post('/programs/:programId/commissions/bulk', async (req, res) => {
    const ctx = await contextOf(res, 'commissions', req.params.programId);
    const action = Object.hasOwn(BULK_ACTIONS, req.body?.action) ? BULK_ACTIONS[req.body.action as keyof typeof BULK_ACTIONS] : null;
    if (!action) throw badRequest('Choose approve or reject', 'action');
    // The reason goes with a rejection only (an approval clears any); left empty, it is not given.
    const fields = action.status === 'rejected' ? ['status', 'rejection_reason'] : ['status'];
    const input = fromFields(CommissionUpdate, { ...req.body, status: action.status }, fields, 'body');
    await updateCommissions(db, ctx.user.organization_id, ctx.program.id, manyValues(req.body?.ids), input, mailer.kick);
    const back = typeof req.body?.back === 'string' && req.body.back.startsWith('?') ? req.body.back : '?';
    const params = new URLSearchParams(back.slice(1));
    params.set('notice', action.notice);
    res.redirect(303, programPath(ctx.program, `/commissions?${params}`));
  });
}

function CommissionsPage({ ctx, page, filters }: { ctx: ProgramPageContext; page: Page<ShownCommission>; filters: Filters }) {
  const program = ctx.program;
  const base = programPath(program, '/commissions');
  const kept = { status: filters.status, partner_id: filters.partner_id, from: filters.from, to: filters.to };
  const back = `?${new URLSearchParams(Object.entries(kept).filter((e): e is [string, string] => Boolean(e[1])))}`;
  return (
    <Layout ctx={ctx} title="Commissions">
      <div class="page-head">
        <h1>Commissions</h1>
      </div>
      <form class="filters" method="get" action={base}>
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">Any</option>
          {COMMISSION_STATUSES.map((s) => (
            <option value={s} selected={filters.status === s}>
              {s}
            </option>
          ))}
        </select>
        <label for="partner_id">Partner id</label>
        <input id="partner_id" name="partner_id" value={filters.partner_id ?? ''} maxlength={64} />
        <label for="from">From</label>
        <input id="from" name="from" type="date" value={filters.from ?? ''} />
        <label for="to">To</label>
        <input id="to" name="to" type="date" value={filters.to ?? ''} />
        <button type="submit">Filter</button>
      </form>
      {page.rows.length === 0 ? (
        <p class="empty">
          {Object.values(kept).some(Boolean)
            ? 'No commission matches these filters.'
            : 'No commissions yet: they are made when a referred customer pays (POST /v1/transactions, or Stripe).'}
        </p>
      ) : (
        <>
          <form id="bulk" method="post" action={`${base}/bulk`} class="bulk">
            <Csrf ctx={ctx} />
            <input type="hidden" name="back" value={back} />
            <span>With the chosen commissions (up to {MAX_BULK_COMMISSIONS}):</span>
            <button type="submit" name="action" value="approve" class="primary">
              Approve
            </button>
            <label for="rejection-reason">Reason (shown to the partner)</label>
            <input id="rejection-reason" name="rejection_reason" maxlength={2000} placeholder="Optional, for a rejection" />
            <button type="submit" name="action" value="reject" class="danger">
              Reject
            </button>
          </form>
          <CommissionTable ctx={ctx} rows={page.rows} bulkForm="bulk" showPartner />
        </>
      )}
      <Pager page={page} base={base} filters={kept} cursor={filters as Cursor} />
    </Layout>
  );
}
