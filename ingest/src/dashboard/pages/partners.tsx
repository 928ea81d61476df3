import type { Response, Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { ApiError, notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal, SelectField, TextareaField, type Typed, typedText } from '../../pages/fields.js';
import { Figure, Figures } from '../../pages/figures.js';
import { CsvLink, FilterForm, type Kept, type ListFilters, queryOf, readListFilters, StatusField } from '../../pages/filters.js';
import { count, customerLabel, day, partnerName } from '../../pages/format.js';
import { fromFields, manyValues } from '../../pages/forms.js';
import { type Cursor, NumberedPager, Pager } from '../../pages/pager.js';
import { RecordId } from '../../pages/record-id.js';
import { type FieldLabels, type Refusal, refusalOf } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { listCommissions, type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import type { CustomerObject } from '../../resources/customers/customers.schema.js';
import { listCustomers } from '../../resources/customers/customers.service.js';
import { shareableLink } from '../../resources/links/link-address.js';
import { LinkCreate, type LinkObject, LinkUpdate } from '../../resources/links/links.schema.js';
import { createLink, deleteLink, listLinks, requireLink, updateLink } from '../../resources/links/links.service.js';
import {
  MAX_PARTNER_STATUS_CHANGE,
  PARTNER_STATUS_ACTIONS,
  PARTNER_STATUSES,
  PartnerCreate,
  type PartnerObject,
  type PartnerStatusAction,
  PartnerStatusChange,
  PartnerUpdate,
  RANKING_STATS,
} from '../../resources/partners/partners.schema.js';
import {
  changePartnerStatuses,
  createPartner,
  listPartners,
  rankPartners,
  retrievePartner,
  updatePartner,
} from '../../resources/partners/partners.service.js';
import type { PayoutObject } from '../../resources/payouts/payouts.schema.js';
import { listPayouts } from '../../resources/payouts/payouts.service.js';
import { openRiskEventsOfPartners } from '../../resources/risk/risk.service.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { csvPath, partnersCsvQuery } from '../list-filters.js';
import { RiskBadge } from '../risk-words.js';

/**
 * The program's partners (ingest/docs/dashboard.md): the list with its filters, bulk status
 * changes and a new partner's form; a partner's page with their links, customers, commissions,
 * payouts, details and status. Every form the service refuses comes back with what was typed and
 * the reason beside its field (ingest/README.md#how-to-add-a-dashboard-or-portal-page).
 */

const PAGE_SIZE = 25;

export const partnerNotices = {
  'partner-approved': 'Partner approved.',
  'partner-rejected': 'Partner rejected.',
  'partner-suspended': 'Partner suspended.',
  'partner-reactivated': 'Partner reactivated.',
  'partner-created': 'Partner created.',
  'partner-saved': 'Partner saved.',
  'link-created': 'Link created.',
  'link-saved': 'Link saved.',
  'link-deleted': 'Link deleted.',
};

/** The notice after a status action on one partner. */
const STATUS_NOTICES: Record<PartnerStatusAction, keyof typeof partnerNotices> = {
  approve: 'partner-approved',
  reject: 'partner-rejected',
  suspend: 'partner-suspended',
  reactivate: 'partner-reactivated',
};

/** The note each action takes (PartnerStatusChange): the others take none. */
const NOTE_OF: Partial<Record<PartnerStatusAction, 'rejection_note' | 'suspension_reason'>> = {
  reject: 'rejection_note',
  suspend: 'suspension_reason',
};

const SORTS = { newest: 'Newest', revenue: 'Revenue', commission: 'Commission', customers: 'Customers', clicks: 'Clicks' } as const;

const PartnerListFilters = z.strictObject({
  status: z.enum(PARTNER_STATUSES).optional(),
  search: z.string().max(254).optional(),
  sort: z.enum(['newest', ...RANKING_STATS]).optional(),
  page: z.coerce.number().int().min(2).max(10_000).optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof PartnerListFilters>;
const FILTER_FIELDS = ['status', 'search', 'sort', 'page', 'starting_after', 'ending_before'];

const CREATE_FIELDS = ['first_name', 'last_name', 'email', 'company_name'];
const DETAIL_FIELDS = ['first_name', 'last_name', 'email', 'company_name', 'internal_note'];

/** What each form's fields are called on the page, by the parameter they set. */
const LABELS = {
  filters: { status: 'Status', search: 'Search', sort: 'Sort by', page: 'Page' },
  partner: { first_name: 'First name', last_name: 'Last name', email: 'E-mail', company_name: 'Company', internal_note: 'Internal note' },
  status: { rejection_note: 'Note to the partner', suspension_reason: 'Reason', action: 'Action', ids: 'Partners' },
  link: { param: 'Parameter', value: 'Value' },
} satisfies Record<string, FieldLabels>;

/**
 * A refused form in plain words. The service's conflicts name no field ("Partner with this email
 * already exists"): here they are put beside the field that conflicts.
 */
function refusalBeside(err: unknown, labels: FieldLabels, conflictField: string, conflictWords: string): Refusal {
  const refusal = refusalOf(err, labels);
  return refusal.status === 409 && !refusal.field ? { ...refusal, field: conflictField, message: conflictWords } : refusal;
}
const EMAIL_TAKEN = 'Another partner of this program has this e-mail address.';
const LINK_TAKEN = 'This value is taken for this parameter in the program: choose another.';

/** A form shown again after a refusal: which one, why, and what was typed (the chosen partners of a bulk form). */
interface RefusedForm {
  form: 'create' | 'bulk' | 'status' | 'details' | 'new-link' | `link-${string}`;
  refusal: Refusal;
  typed: Typed;
  chosen?: ReadonlySet<string>;
}

/** The page's own words after a bulk change: how many partners changed, from the address (digits and an action only, never text). */
function bulkNotice(query: Record<string, unknown>): string | null {
  const action = String(query.bulk);
  const number = (v: unknown) => (typeof v === 'string' && /^\d{1,3}$/.test(v) ? Number(v) : null);
  const changed = number(query.changed);
  const unchanged = number(query.unchanged) ?? 0;
  if (!Object.hasOwn(PARTNER_STATUS_ACTIONS, action) || changed === null) return null;
  const done = { approve: 'approved', reject: 'rejected', suspend: 'suspended', reactivate: 'reactivated' }[action as PartnerStatusAction];
  const already = unchanged
    ? ` ${count(unchanged)} ${unchanged === 1 ? 'was' : 'were'} already ${PARTNER_STATUS_ACTIONS[action as PartnerStatusAction]}: left as ${unchanged === 1 ? 'it was' : 'they were'}.`
    : '';
  return `${count(changed)} partner${changed === 1 ? '' : 's'} ${done}.${already}`;
}

/** A bulk form's `back` (the list's filters it was sent from, as `?…`), as a query. */
const backQuery = (back: unknown): URLSearchParams =>
  new URLSearchParams(typeof back === 'string' && back.startsWith('?') ? back.slice(1) : '');

export function registerPartnerPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, store, mailer } = deps;

  /** The list for `query` (the page's address, or a refused form's `back`), with that form's refusal when there is one. */
  async function showPartners(res: Response, ctx: ProgramPageContext, query: Record<string, unknown>, refused?: RefusedForm) {
    const base = programPath(ctx.program, '/partners');
    const view = await readListFilters({
      base,
      query,
      pickers: [],
      picked: {},
      schema: PartnerListFilters,
      fields: FILTER_FIELDS,
      labels: LABELS.filters,
      keep: (f) => ({ status: f.status, search: f.search, sort: f.sort === 'newest' ? undefined : f.sort }),
    });
    const f = view.filters;
    const common = f && { program_id: ctx.program.id, status: f.status, search: f.search };
    // Newest first pages with the API's cursors; a ranking by a stat pages by number.
    const page = !common
      ? null
      : f.sort && f.sort !== 'newest'
        ? await rankPartners(db, ctx.user.organization_id, {
            ...common,
            stat: f.sort,
            limit: PAGE_SIZE,
            offset: ((f.page ?? 1) - 1) * PAGE_SIZE,
          })
        : await listPartners(db, ctx.user.organization_id, {
            ...common,
            starting_after: f.starting_after,
            ending_before: f.ending_before,
            limit: PAGE_SIZE,
            include: ['stats'],
          });
    // The page's partners with open risk events wear a badge: one query for the page (ingest/docs/dashboard.md#risk).
    const flagged = await openRiskEventsOfPartners(db, ctx.user.organization_id, page?.rows.map((p) => p.id) ?? []);
    const shown = { ...ctx, notice: bulkNotice(query) ?? ctx.notice };
    sendPage(
      res,
      <PartnerListPage ctx={shown} view={view} page={page} flagged={flagged} refused={refused} />,
      refused?.refusal.status ?? view.refusal?.status,
    );
  }

  router.get('/programs/:programId/partners', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    await showPartners(res, ctx, req.query);
  });

  router.post('/programs/:programId/partners', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    let partnerId: string;
    try {
      const input = fromFields(PartnerCreate, { ...req.body, program_id: ctx.program.id }, [...CREATE_FIELDS, 'program_id'], 'body');
      partnerId = (await createPartner(db, ctx.user.organization_id, input, mailer.kick)).id;
    } catch (err) {
      const refusal = refusalBeside(err, LABELS.partner, 'email', EMAIL_TAKEN);
      return showPartners(res, ctx, {}, { form: 'create', refusal, typed: req.body });
    }
    res.redirect(303, programPath(ctx.program, `/partners/${partnerId}?notice=partner-created`));
  });

  // Before /partners/:partnerId, which would take "bulk" for an id.
  router.post('/programs/:programId/partners/bulk', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const back = backQuery(body.back);
    const ids = manyValues(body.ids);
    try {
      const input = statusChangeOf(body, ids);
      const { changed, unchanged } = await changePartnerStatuses(db, ctx.user.organization_id, ctx.program.id, input);
      back.delete('notice');
      back.set('bulk', input.action);
      back.set('changed', String(changed.length));
      if (unchanged.length > 0) back.set('unchanged', String(unchanged.length));
      res.redirect(303, programPath(ctx.program, `/partners?${back}`));
    } catch (err) {
      // Nothing changed (all or none): the same list again, what was chosen and typed kept, the refusal at its top.
      await showPartners(res, ctx, Object.fromEntries(back), {
        form: 'bulk',
        refusal: bulkRefusal(err),
        typed: body,
        chosen: new Set(ids),
      });
    }
  });

  /** The partner's page, with a refused form of it shown again when there is one. */
  async function showPartner(res: Response, ctx: ProgramPageContext, partner: PartnerObject, refused?: RefusedForm) {
    const org = ctx.user.organization_id;
    const scope = { program_id: ctx.program.id, partner_id: partner.id, limit: 10 };
    const [links, customers, commissions, payouts, flagged] = await Promise.all([
      listLinks(db, org, { ...scope, limit: 100 }),
      listCustomers(db, org, scope),
      listCommissions(db, org, { ...scope, expand: ['customer'] }).then((page) => withStoredFields(db, page)),
      listPayouts(db, org, scope),
      openRiskEventsOfPartners(db, org, [partner.id]),
    ]);
    sendPage(
      res,
      <PartnerPage
        ctx={ctx}
        partner={partner}
        links={links}
        customers={customers}
        commissions={commissions}
        payouts={payouts}
        openRiskEvents={flagged.get(partner.id) ?? 0}
        refused={refused}
      />,
      refused?.refusal.status,
    );
  }

  router.get('/programs/:programId/partners/:partnerId', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    await showPartner(res, ctx, await programPartner(ctx, req.params.partnerId));
  });

  /** The partner of the program in the URL, with stats; another program's or organization's is a 404. */
  async function programPartner(ctx: ProgramPageContext, partnerId: string): Promise<PartnerObject> {
    const partner = await retrievePartner(db, ctx.user.organization_id, partnerId, { include: ['stats'] });
    if (partner.program_id !== ctx.program.id) throw notFound('partner', partnerId);
    return partner;
  }

  /**
   * Runs a change of the partner's page and goes back to it with `notice`; a refusal shows the
   * page again with the form's message beside its field (a conflict beside `conflict`'s field).
   */
  async function changeOnPartnerPage(
    res: Response,
    ctx: ProgramPageContext,
    partner: PartnerObject,
    form: RefusedForm['form'],
    typed: Typed,
    labels: FieldLabels,
    change: () => Promise<string>,
    conflict?: { field: string; words: string },
  ) {
    let notice: string;
    try {
      notice = await change();
    } catch (err) {
      const refusal = conflict ? refusalBeside(err, labels, conflict.field, conflict.words) : refusalOf(err, labels);
      return showPartner(res, ctx, partner, { form, refusal, typed });
    }
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=${notice}`));
  }

  // One partner's status action is the bulk change of one partner: the same function and rules.
  router.post('/programs/:programId/partners/:partnerId/status', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const body = (req.body ?? {}) as Record<string, unknown>;
    await changeOnPartnerPage(res, ctx, partner, 'status', body, LABELS.status, async () => {
      const input = statusChangeOf(body, [partner.id]);
      await changePartnerStatuses(db, ctx.user.organization_id, ctx.program.id, input);
      return STATUS_NOTICES[input.action];
    });
  });

  router.post('/programs/:programId/partners/:partnerId', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    await changeOnPartnerPage(
      res,
      ctx,
      partner,
      'details',
      req.body,
      LABELS.partner,
      async () => {
        const input = fromFields(PartnerUpdate, req.body, DETAIL_FIELDS, 'body', ['company_name', 'internal_note']);
        await updatePartner(db, ctx.user.organization_id, partner.id, input);
        return 'partner-saved';
      },
      { field: 'email', words: EMAIL_TAKEN },
    );
  });

  router.post('/programs/:programId/partners/:partnerId/links', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    await changeOnPartnerPage(
      res,
      ctx,
      partner,
      'new-link',
      req.body,
      LABELS.link,
      async () => {
        const input = fromFields(LinkCreate, { ...req.body, partner_id: partner.id }, ['param', 'value', 'partner_id'], 'body');
        await createLink(db, store, ctx.user.organization_id, input);
        return 'link-created';
      },
      { field: 'value', words: LINK_TAKEN },
    );
  });

  /** The partner's link named in the URL; another partner's is a 404. */
  async function partnerLink(ctx: ProgramPageContext, partner: PartnerObject, linkId: string) {
    const link = await requireLink(db, ctx.user.organization_id, linkId);
    if (link.partner_id !== partner.id) throw notFound('link', link.id);
    return link;
  }

  router.post('/programs/:programId/partners/:partnerId/links/:linkId', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const link = await partnerLink(ctx, partner, req.params.linkId);
    await changeOnPartnerPage(
      res,
      ctx,
      partner,
      `link-${link.id}`,
      req.body,
      LABELS.link,
      async () => {
        await updateLink(db, store, ctx.user.organization_id, link.id, fromFields(LinkUpdate, req.body, ['value'], 'body'));
        return 'link-saved';
      },
      { field: 'value', words: LINK_TAKEN },
    );
  });

  router.post('/programs/:programId/partners/:partnerId/links/:linkId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const link = await partnerLink(ctx, partner, req.params.linkId);
    await deleteLink(db, store, ctx.user.organization_id, link.id);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=link-deleted`));
  });
}

/**
 * A status form (one partner's, or the list's bulk form) as the service's input, read through its
 * schema: the note of the chosen action only (the form shows both), an empty one clearing the
 * partners' note as a single change does.
 */
function statusChangeOf(body: Record<string, unknown>, ids: string[]) {
  const note =
    typeof body.action === 'string' && Object.hasOwn(NOTE_OF, body.action) ? NOTE_OF[body.action as PartnerStatusAction] : undefined;
  return fromFields(PartnerStatusChange, { ...body, ids }, ['ids', 'action', ...(note ? [note] : [])], 'body', [
    'rejection_note',
    'suspension_reason',
  ]);
}

/**
 * A refused bulk change in words. The service's 404 names the partners that are not the
 * program's by their ids (another program's, or deleted since the page was shown): that is the
 * form's problem, said without ids, and nothing changed.
 */
function bulkRefusal(err: unknown): Refusal {
  if (err instanceof ApiError && err.type === 'not_found_error') {
    return {
      message:
        'Nothing was changed: some of the chosen partners are not partners of this program (of another program, or deleted since this page was shown). Choose again.',
      status: err.status,
    };
  }
  return refusalOf(err, LABELS.status);
}

function PartnerListPage({
  ctx,
  view,
  page,
  flagged,
  refused,
}: {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  page: Page<PartnerObject> | null;
  /** Open risk events by partner (none: absent). */
  flagged: ReadonlyMap<string, number>;
  refused?: RefusedForm;
}) {
  const program = ctx.program;
  const base = programPath(program, '/partners');
  const { kept, typed } = view;
  const filtered = Boolean(kept.status || kept.search);
  const ranked = view.filters?.sort && view.filters.sort !== 'newest';
  const bulk = refused?.form === 'bulk' ? refused : undefined;
  return (
    <Layout ctx={ctx} title="Partners">
      <div class="page-head">
        <h1>Partners</h1>
        {page ? <CsvLink href={csvPath(program, 'partners', partnersCsvQuery(kept))} /> : null}
      </div>
      <NewPartnerForm ctx={ctx} base={base} refused={refused?.form === 'create' ? refused : undefined} />
      <FilterForm action={base} label="Filter partners" filtered={filtered || Boolean(ranked)}>
        <Field
          name="search"
          id="filter-search"
          type="search"
          label="Search"
          value={typed.search}
          placeholder="Name or e-mail"
          maxlength={254}
          refusal={view.refusal}
        />
        <StatusField statuses={PARTNER_STATUSES} view={view} />
        <SelectField
          name="sort"
          id="filter-sort"
          label="Sort by"
          value={typed.sort ?? 'newest'}
          options={Object.entries(SORTS)}
          refusal={view.refusal}
        />
      </FilterForm>
      <FormRefusal refusal={bulk?.refusal} fields={['rejection_note', 'suspension_reason']} />
      {page === null ? null : page.rows.length === 0 ? (
        <p class="empty">
          {filtered
            ? 'No partner matches these filters.'
            : 'No partners yet. Add one above, or create them with POST /v1/partners; each gets links to share.'}
        </p>
      ) : (
        <>
          <BulkStatusForm ctx={ctx} base={base} kept={kept} refused={bulk} />
          <DataTable
            caption="Partners"
            rows={page.rows}
            empty=""
            choose={{
              form: 'bulk-partners',
              name: 'ids',
              value: (p) => p.id,
              label: (p) => `Choose ${partnerName(p)}`,
              allLabel: 'Choose every partner on this page',
              checked: bulk?.chosen ? (p) => bulk.chosen!.has(p.id) : undefined,
            }}
            columns={[
              {
                head: 'Partner',
                cell: (p) => (
                  <>
                    <a href={programPath(program, `/partners/${p.id}`)}>{partnerName(p)}</a>{' '}
                    <RiskBadge program={program} partnerId={p.id} open={flagged.get(p.id)} />
                    <span class="sub">{p.email}</span>
                  </>
                ),
              },
              { head: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
              { head: 'Clicks', numeric: true, cell: (p) => count(p.stats?.total_clicks ?? 0) },
              { head: 'Customers', numeric: true, cell: (p) => count(p.stats?.total_customers ?? 0) },
              { head: 'Revenue', numeric: true, cell: (p) => formatMoney(p.stats?.total_revenue ?? 0, program.currency_code) },
              { head: 'Commission', numeric: true, cell: (p) => formatMoney(p.stats?.total_commission ?? 0, program.currency_code) },
              { head: 'Joined', cell: (p) => day(p.created_at) },
            ]}
          />
        </>
      )}
      {page === null ? null : ranked ? (
        <NumberedPager page={page} base={base} filters={kept} at={view.filters?.page ?? 1} />
      ) : (
        <Pager page={page} base={base} filters={kept} cursor={view.filters as Cursor} />
      )}
    </Layout>
  );
}

/** "Add a partner": open again, with what was typed and the reason, after a refusal. */
function NewPartnerForm({ ctx, base, refused }: { ctx: ProgramPageContext; base: string; refused?: RefusedForm }) {
  const typed = (name: string) => typedText(refused?.typed, name);
  const refusal = refused?.refusal;
  return (
    <details class="add" open={refused !== undefined}>
      <summary class="button primary">Add a partner</summary>
      <form method="post" action={base} class="stack">
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refusal} fields={CREATE_FIELDS} />
        <Field name="first_name" label="First name" value={typed('first_name')} required maxlength={100} refusal={refusal} />
        <Field name="last_name" label="Last name" value={typed('last_name')} required maxlength={100} refusal={refusal} />
        <Field
          name="email"
          id="new-email"
          type="email"
          label="E-mail"
          value={typed('email')}
          required
          maxlength={254}
          autocomplete="off"
          refusal={refusal}
        />
        <Field name="company_name" label="Company (optional)" value={typed('company_name')} maxlength={200} refusal={refusal} />
        <button type="submit" class="primary">
          Create partner
        </button>
      </form>
    </details>
  );
}

/** The bulk form of the list: its checkboxes are the table's (`form="bulk-partners"`); each action takes its own note. */
function BulkStatusForm({ ctx, base, kept, refused }: { ctx: ProgramPageContext; base: string; kept: Kept; refused?: RefusedForm }) {
  return (
    <form id="bulk-partners" method="post" action={`${base}/bulk`} class="bulk bulk-partners" aria-label="Change the chosen partners">
      <Csrf ctx={ctx} />
      <input type="hidden" name="back" value={`?${queryOf(kept)}`} />
      <span>With the chosen partners (up to {MAX_PARTNER_STATUS_CHANGE}):</span>
      <button type="submit" name="action" value="approve" class="primary">
        Approve
      </button>
      <button type="submit" name="action" value="reactivate">
        Reactivate
      </button>
      <NoteAction action="reject" label="Note to the partner" placeholder="Optional, for a rejection" button="Reject" refused={refused} />
      <NoteAction action="suspend" label="Reason for a suspension" placeholder="Optional" button="Suspend" refused={refused} />
    </form>
  );
}

/** An action of the bulk form with its own note (NOTE_OF): the note's field and the button that sends it. */
function NoteAction(props: { action: 'reject' | 'suspend'; label: string; placeholder: string; button: string; refused?: RefusedForm }) {
  const name = NOTE_OF[props.action]!;
  return (
    <span class="bulk-group">
      <Field
        name={name}
        id={`bulk-${name.replace('_', '-')}`}
        label={props.label}
        placeholder={props.placeholder}
        maxlength={2000}
        value={typedText(props.refused?.typed, name)}
        refusal={props.refused?.refusal}
      />
      <button type="submit" name="action" value={props.action} class="danger">
        {props.button}
      </button>
    </span>
  );
}

/** A link as the partner shares it (shareableLink), with a copy button; its parameter and value alone while the program has no website address. */
function SharedLink({ program, link }: { program: ProgramPageContext['program']; link: LinkObject }) {
  const url = shareableLink(program, link);
  if (!url) return <span>{`${link.param}: ${link.value}`}</span>;
  return (
    <>
      <code class="url">{url}</code>{' '}
      <button type="button" class="copy" data-copy={url}>
        Copy
      </button>
    </>
  );
}

function PartnerPage(props: {
  ctx: ProgramPageContext;
  partner: PartnerObject;
  links: Page<LinkObject>;
  customers: Page<CustomerObject>;
  commissions: Page<ShownCommission>;
  payouts: Page<PayoutObject>;
  /** The partner's open risk events: a badge linking to them on the Risk page. */
  openRiskEvents: number;
  refused?: RefusedForm;
}) {
  const { ctx, partner, links, customers, commissions, payouts, openRiskEvents, refused } = props;
  const program = ctx.program;
  const base = programPath(program, `/partners/${partner.id}`);
  const currency = program.currency_code;
  const stats = partner.stats!;
  const refusedHere = (form: RefusedForm['form']) => (refused?.form === form ? refused : undefined);
  return (
    <Layout ctx={ctx} title={partnerName(partner)}>
      <p class="crumbs">
        <a href={programPath(program, '/partners')}>Partners</a> /
      </p>
      <div class="page-head">
        <h1>
          {partnerName(partner)} <StatusBadge status={partner.status} />{' '}
          <RiskBadge program={program} partnerId={partner.id} open={openRiskEvents} />
        </h1>
      </div>
      <p class="sub">
        {partner.email}
        {partner.company_name ? ` · ${partner.company_name}` : ''} · joined {day(partner.created_at)} ·{' '}
        {partner.payout_method === 'none' ? 'no payout method yet' : `paid by ${partner.payout_method}`}
      </p>
      <StatusActions ctx={ctx} partner={partner} base={base} refused={refusedHere('status')} />
      <Figures>
        <Figure label="Clicks" value={count(stats.total_clicks)} />
        <Figure label="Customers" value={count(stats.total_customers)} />
        <Figure label="Revenue" value={formatMoney(stats.total_revenue, currency)} />
        <Figure label="Commission" value={formatMoney(stats.total_commission, currency)} />
      </Figures>

      <section aria-labelledby="links-title">
        <h2 id="links-title">Links</h2>
        <DataTable
          caption="Links"
          rows={links.rows}
          empty="No links yet: add one, and the partner shares any page of your site with it."
          columns={[
            { head: 'Link', cell: (l) => <SharedLink program={program} link={l} /> },
            { head: 'Since', cell: (l) => day(l.created_at) },
            { head: 'Change', cell: (l) => <LinkActions ctx={ctx} base={base} link={l} refused={refusedHere(`link-${l.id}`)} /> },
          ]}
        />
        <NewLinkForm ctx={ctx} base={base} refused={refusedHere('new-link')} />
      </section>

      <section aria-labelledby="customers-title">
        <h2 id="customers-title">Latest customers</h2>
        <DataTable
          caption="Latest customers"
          rows={customers.rows}
          empty="No customers yet."
          columns={[
            { head: 'Customer', cell: (c) => <a href={programPath(program, `/customers/${c.id}`)}>{customerLabel(c)}</a> },
            { head: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
            { head: 'Since', cell: (c) => day(c.created_at) },
          ]}
        />
      </section>

      <section aria-labelledby="commissions-title">
        <h2 id="commissions-title">Latest commissions</h2>
        <CommissionTable ctx={ctx} rows={commissions.rows} showPartner={false} empty="No commissions yet." />
        <p>
          <a href={programPath(program, `/commissions?partner_id=${partner.id}`)}>All of this partner's commissions</a>
        </p>
      </section>

      <section aria-labelledby="payouts-title">
        <h2 id="payouts-title">Payouts</h2>
        <DataTable
          caption="Payouts"
          rows={payouts.rows}
          empty="No payouts yet."
          columns={[
            { head: 'Created', cell: (p) => <a href={programPath(program, `/payouts/${p.id}`)}>{day(p.created_at)}</a> },
            { head: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
            { head: 'Amount', numeric: true, cell: (p) => formatMoney(p.amount, p.currency) },
            { head: 'Commissions', numeric: true, cell: (p) => count(p.commission_count) },
          ]}
        />
      </section>

      <section aria-labelledby="edit-title">
        <h2 id="edit-title">Details and notes</h2>
        <p>
          Partner id: <RecordId id={partner.id} />
        </p>
        <DetailsForm ctx={ctx} partner={partner} base={base} refused={refusedHere('details')} />
      </section>
    </Layout>
  );
}

/** What a form of the partner's page is given: the partner, the page's address, and its refusal when it was refused. */
interface PartnerFormProps {
  ctx: ProgramPageContext;
  partner: PartnerObject;
  base: string;
  refused?: RefusedForm;
}

/** The partner's details and internal note: what was typed kept on a refusal, else what is stored. */
function DetailsForm({ ctx, partner, base, refused }: PartnerFormProps) {
  const value = (name: keyof PartnerObject & string) => typedText(refused?.typed, name, partner[name] ?? '');
  const refusal = refused?.refusal;
  return (
    <form method="post" action={base} class="stack">
      <Csrf ctx={ctx} />
      <FormRefusal refusal={refusal} fields={DETAIL_FIELDS} />
      <Field name="first_name" id="edit-first" label="First name" value={value('first_name')} required maxlength={100} refusal={refusal} />
      <Field name="last_name" id="edit-last" label="Last name" value={value('last_name')} required maxlength={100} refusal={refusal} />
      <Field name="email" id="edit-email" type="email" label="E-mail" value={value('email')} required maxlength={254} refusal={refusal} />
      <Field name="company_name" id="edit-company" label="Company" value={value('company_name')} maxlength={200} refusal={refusal} />
      <TextareaField
        name="internal_note"
        id="edit-note"
        label="Internal note (never shown to the partner)"
        value={value('internal_note')}
        maxlength={2000}
        refusal={refusal}
      />
      <button type="submit">Save</button>
    </form>
  );
}

/** A link's edit form (open again after a refusal, with the value typed) and its delete button. */
function LinkActions({ ctx, base, link, refused }: { ctx: ProgramPageContext; base: string; link: LinkObject; refused?: RefusedForm }) {
  return (
    <div class="row-actions">
      <details class="inline" open={refused !== undefined}>
        <summary class="button">Edit</summary>
        <form method="post" action={`${base}/links/${link.id}`} class="row">
          <Csrf ctx={ctx} />
          <Field
            name="value"
            id={`value-${link.id}`}
            label={`Value of ${link.param}`}
            value={typedText(refused?.typed, 'value', link.value)}
            required
            maxlength={64}
            refusal={refused?.refusal}
          />
          <button type="submit">Save link</button>
        </form>
      </details>{' '}
      <form method="post" action={`${base}/links/${link.id}/delete`} class="inline">
        <Csrf ctx={ctx} />
        <button
          type="submit"
          class="danger"
          data-confirm={`Delete the link ${link.param}=${link.value}? It stops counting clicks at once.`}
        >
          Delete
        </button>
      </form>
    </div>
  );
}

function NewLinkForm({ ctx, base, refused }: { ctx: ProgramPageContext; base: string; refused?: RefusedForm }) {
  const refusal = refused?.refusal;
  return (
    <form method="post" action={`${base}/links`} class="row new-link" aria-label="Add a link">
      <Csrf ctx={ctx} />
      <FormRefusal refusal={refusal} fields={['param', 'value']} />
      <SelectField
        name="param"
        id="link-param"
        label="Parameter"
        value={typedText(refused?.typed, 'param', ctx.program.url_params[0])}
        options={ctx.program.url_params.map((p) => [p, p] as const)}
        refusal={refusal}
      />
      <Field
        name="value"
        id="link-value"
        label="Value"
        value={typedText(refused?.typed, 'value')}
        required
        maxlength={64}
        placeholder="alice"
        refusal={refusal}
      />
      <button type="submit">Add link</button>
    </form>
  );
}

/** The status actions the partner's status offers, each with its own note; open again after a refusal, with what was typed. */
function StatusActions({ ctx, partner, base, refused }: PartnerFormProps) {
  const action = `${base}/status`;
  const refusal = refused?.refusal;
  const wanted = refused ? String(refused.typed.action) : undefined;
  const top = <FormRefusal refusal={refusal} fields={['rejection_note', 'suspension_reason']} />;
  const noteForm = (kind: 'reject' | 'suspend') => {
    const field = NOTE_OF[kind]!;
    const words =
      kind === 'reject'
        ? { summary: 'Reject…', label: 'Note to the partner (optional)', button: 'Reject partner', id: 'rejection-note' }
        : { summary: 'Suspend…', label: 'Reason (optional)', button: 'Suspend partner', id: 'suspension-reason' };
    return (
      <details class="inline" open={wanted === kind}>
        <summary class="button">{words.summary}</summary>
        <form method="post" action={action} class="stack">
          <Csrf ctx={ctx} />
          <TextareaField
            name={field}
            id={words.id}
            label={words.label}
            rows={2}
            maxlength={2000}
            value={typedText(refused?.typed, field)}
            refusal={refusal}
          />
          <button type="submit" name="action" value={kind} class="danger">
            {words.button}
          </button>
        </form>
      </details>
    );
  };
  const single = (kind: 'approve' | 'reactivate', label: string, className?: string) => (
    <form method="post" action={action} class="inline">
      <Csrf ctx={ctx} />
      <button type="submit" name="action" value={kind} class={className}>
        {label}
      </button>
    </form>
  );
  return (
    <>
      {top}
      <div class="actions">
        {partner.status === 'pending' ? (
          <>
            {single('approve', 'Approve', 'primary')}
            {noteForm('reject')}
          </>
        ) : partner.status === 'active' ? (
          noteForm('suspend')
        ) : (
          <>
            {partner.rejection_note ? <p class="muted">Rejection note: {partner.rejection_note}</p> : null}
            {partner.suspension_reason ? <p class="muted">Suspended: {partner.suspension_reason}</p> : null}
            {single('reactivate', 'Reactivate')}
          </>
        )}
      </div>
    </>
  );
}
