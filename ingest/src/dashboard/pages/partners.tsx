import type { Router } from 'express';
import { z } from 'zod';
import type { ProgramRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { badRequest, notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { count, day, partnerName } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, NumberedPager, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import { listCommissions, type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import type { CustomerObject } from '../../resources/customers/customers.schema.js';
import { listCustomers } from '../../resources/customers/customers.service.js';
import { shareableLink } from '../../resources/links/link-address.js';
import { LinkCreate, type LinkObject, LinkUpdate } from '../../resources/links/links.schema.js';
import { createLink, deleteLink, listLinks, requireLink, updateLink } from '../../resources/links/links.service.js';
import { RANKING_STATS } from '../../resources/partners/partners.repository.js';
import { PARTNER_STATUSES, PartnerCreate, type PartnerObject, PartnerUpdate } from '../../resources/partners/partners.schema.js';
import { createPartner, listPartners, rankPartners, retrievePartner, updatePartner } from '../../resources/partners/partners.service.js';
import type { PayoutObject } from '../../resources/payouts/payouts.schema.js';
import { listPayouts } from '../../resources/payouts/payouts.service.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';

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

const SORTS = { newest: 'Newest', revenue: 'Revenue', commission: 'Commission', customers: 'Customers', clicks: 'Clicks' } as const;

const PartnerListFilters = z.strictObject({
  status: z.enum(PARTNER_STATUSES).optional(),
  search: z.string().max(254).optional(),
  sort: z.enum(['newest', ...RANKING_STATS]).optional(),
  page: z.coerce.number().int().min(2).max(10_000).optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});

/** What a status button does, and the notice shown after it. */
const STATUS_ACTIONS = {
  approve: { status: 'active', notice: 'partner-approved' },
  reject: { status: 'rejected', notice: 'partner-rejected' },
  suspend: { status: 'suspended', notice: 'partner-suspended' },
  reactivate: { status: 'active', notice: 'partner-reactivated' },
} as const;

export function registerPartnerPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, store, mailer } = deps;

  router.get('/programs/:programId/partners', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const program = ctx.program;
    const filters = fromFields(
      PartnerListFilters,
      req.query,
      ['status', 'search', 'sort', 'page', 'starting_after', 'ending_before'],
      'query',
    );
    const common = { program_id: program.id, status: filters.status, search: filters.search };
    // Newest first pages with the API's cursors; a ranking by a stat pages by number.
    const page =
      filters.sort && filters.sort !== 'newest'
        ? await rankPartners(db, ctx.user.organization_id, {
            ...common,
            stat: filters.sort,
            limit: PAGE_SIZE,
            offset: ((filters.page ?? 1) - 1) * PAGE_SIZE,
          })
        : await listPartners(db, ctx.user.organization_id, {
            ...common,
            starting_after: filters.starting_after,
            ending_before: filters.ending_before,
            limit: PAGE_SIZE,
            include: ['stats'],
          });
    sendPage(res, <PartnerListPage ctx={ctx} page={page} filters={filters} />);
  });

  router.post('/programs/:programId/partners', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const input = fromFields(
      PartnerCreate,
      { ...req.body, program_id: ctx.program.id },
      ['first_name', 'last_name', 'email', 'company_name', 'program_id'],
      'body',
    );
    const partner = await createPartner(db, ctx.user.organization_id, input, mailer.kick);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=partner-created`));
  });

  router.get('/programs/:programId/partners/:partnerId', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const org = ctx.user.organization_id;
    const partner = await programPartner(ctx, req.params.partnerId);
    const scope = { program_id: ctx.program.id, partner_id: partner.id, limit: 10 };
    const [links, customers, commissions, payouts] = await Promise.all([
      listLinks(db, org, { ...scope, limit: 100 }),
      listCustomers(db, org, scope),
      listCommissions(db, org, { ...scope, expand: ['customer'] }).then((page) => withStoredFields(db, page)),
      listPayouts(db, org, scope),
    ]);
    sendPage(
      res,
      <PartnerPage ctx={ctx} partner={partner} links={links} customers={customers} commissions={commissions} payouts={payouts} />,
    );
  });

  /** The partner of the program in the URL, with stats; another program's or organization's is a 404. */
  async function programPartner(ctx: ProgramPageContext, partnerId: string): Promise<PartnerObject> {
    const partner = await retrievePartner(db, ctx.user.organization_id, partnerId, { include: ['stats'] });
    if (partner.program_id !== ctx.program.id) throw notFound('partner', partnerId);
    return partner;
  }

  router.post('/programs/:programId/partners/:partnerId/status', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const action = Object.hasOwn(STATUS_ACTIONS, req.body?.action) ? STATUS_ACTIONS[req.body.action as keyof typeof STATUS_ACTIONS] : null;
    if (!action) throw badRequest('Choose approve, reject, suspend or reactivate', 'action');
    const input = fromFields(
      PartnerUpdate,
      { ...req.body, status: action?.status },
      ['status', 'rejection_note', 'suspension_reason'],
      'body',
      ['rejection_note', 'suspension_reason'],
    );
    await updatePartner(db, ctx.user.organization_id, partner.id, input);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=${action.notice}`));
  });

  router.post('/programs/:programId/partners/:partnerId', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const input = fromFields(PartnerUpdate, req.body, ['first_name', 'last_name', 'email', 'company_name', 'internal_note'], 'body', [
      'company_name',
      'internal_note',
    ]);
    await updatePartner(db, ctx.user.organization_id, partner.id, input);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=partner-saved`));
  });

  router.post('/programs/:programId/partners/:partnerId/links', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const input = fromFields(LinkCreate, { ...req.body, partner_id: partner.id }, ['param', 'value', 'partner_id'], 'body');
    await createLink(db, store, ctx.user.organization_id, input);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=link-created`));
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
    const input = fromFields(LinkUpdate, req.body, ['value'], 'body');
    await updateLink(db, store, ctx.user.organization_id, link.id, input);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=link-saved`));
  });

  router.post('/programs/:programId/partners/:partnerId/links/:linkId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'partners', req.params.programId);
    const partner = await programPartner(ctx, req.params.partnerId);
    const link = await partnerLink(ctx, partner, req.params.linkId);
    await deleteLink(db, store, ctx.user.organization_id, link.id);
    res.redirect(303, programPath(ctx.program, `/partners/${partner.id}?notice=link-deleted`));
  });
}

function PartnerListPage({
  ctx,
  page,
  filters,
}: {
  ctx: ProgramPageContext;
  page: Page<PartnerObject>;
  filters: z.output<typeof PartnerListFilters>;
}) {
  const program = ctx.program;
  const base = programPath(program, '/partners');
  const currency = program.currency_code;
  return (
    <Layout ctx={ctx} title="Partners">
      <div class="page-head">
        <h1>Partners</h1>
        <details class="add">
          <summary class="button primary">Add a partner</summary>
          <form method="post" action={base} class="stack">
            <Csrf ctx={ctx} />
            <label for="first_name">First name</label>
            <input id="first_name" name="first_name" required maxlength={100} />
            <label for="last_name">Last name</label>
            <input id="last_name" name="last_name" required maxlength={100} />
            <label for="new-email">E-mail</label>
            <input id="new-email" name="email" type="email" required maxlength={254} />
            <label for="company_name">Company (optional)</label>
            <input id="company_name" name="company_name" maxlength={200} />
            <button type="submit" class="primary">
              Create partner
            </button>
          </form>
        </details>
      </div>
      <search>
        <form class="filters" method="get" action={base}>
          <label for="search">Search</label>
          <input id="search" name="search" type="search" value={filters.search ?? ''} placeholder="Name or e-mail" />
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="">Any</option>
            {PARTNER_STATUSES.map((s) => (
              <option value={s} selected={filters.status === s}>
                {s}
              </option>
            ))}
          </select>
          <label for="sort">Sort by</label>
          <select id="sort" name="sort">
            {Object.entries(SORTS).map(([value, label]) => (
              <option value={value} selected={(filters.sort ?? 'newest') === value}>
                {label}
              </option>
            ))}
          </select>
          <button type="submit">Filter</button>
        </form>
      </search>
      {page.rows.length === 0 ? (
        <p class="empty">
          {filters.search || filters.status
            ? 'No partner matches these filters.'
            : 'No partners yet. Add one above, or create them with POST /v1/partners; each gets links to share.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Partner</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Clicks
                </th>
                <th scope="col" class="num">
                  Customers
                </th>
                <th scope="col" class="num">
                  Revenue
                </th>
                <th scope="col" class="num">
                  Commission
                </th>
                <th scope="col">Joined</th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((p) => (
                <tr>
                  <th scope="row">
                    <a href={programPath(program, `/partners/${p.id}`)}>{partnerName(p)}</a>
                    <span class="sub">{p.email}</span>
                  </th>
                  <td>
                    <StatusBadge status={p.status} />
                  </td>
                  <td class="num">{count(p.stats?.total_clicks ?? 0)}</td>
                  <td class="num">{count(p.stats?.total_customers ?? 0)}</td>
                  <td class="num">{formatMoney(p.stats?.total_revenue ?? 0, currency)}</td>
                  <td class="num">{formatMoney(p.stats?.total_commission ?? 0, currency)}</td>
                  <td>{day(p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {filters.sort && filters.sort !== 'newest' ? (
        <NumberedPager
          page={page}
          base={base}
          filters={{ status: filters.status, search: filters.search, sort: filters.sort }}
          at={filters.page ?? 1}
        />
      ) : (
        <Pager page={page} base={base} filters={{ status: filters.status, search: filters.search }} cursor={filters as Cursor} />
      )}
    </Layout>
  );
}

/** A link as the partner shares it (shareableLink), with a copy button; its parameter and value alone while the program has no website address. */
function SharedLink({ program, link }: { program: Pick<ProgramRow, 'website_url'>; link: LinkObject }) {
  const url = shareableLink(program, link);
  if (!url) return <span>{`${link.param}: ${link.value}`}</span>;
  return (
    <>
      <code class="url">{url}</code>
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
}) {
  const { ctx, partner, links, customers, commissions, payouts } = props;
  const program = ctx.program;
  const base = programPath(program, `/partners/${partner.id}`);
  const currency = program.currency_code;
  const stats = partner.stats!;
  return (
    <Layout ctx={ctx} title={partnerName(partner)}>
      <p class="crumbs">
        <a href={programPath(program, '/partners')}>Partners</a> /
      </p>
      <div class="page-head">
        <h1>
          {partnerName(partner)} <StatusBadge status={partner.status} />
        </h1>
      </div>
      <p class="sub">
        {partner.email}
        {partner.company_name ? ` · ${partner.company_name}` : ''} · joined {day(partner.created_at)} ·{' '}
        {partner.payout_method === 'none' ? 'no payout method yet' : `paid by ${partner.payout_method}`}
      </p>
      <StatusActions ctx={ctx} partner={partner} base={base} />
      <dl class="figures">
        <div class="figure">
          <dt>Clicks</dt>
          <dd class="value">{count(stats.total_clicks)}</dd>
        </div>
        <div class="figure">
          <dt>Customers</dt>
          <dd class="value">{count(stats.total_customers)}</dd>
        </div>
        <div class="figure">
          <dt>Revenue</dt>
          <dd class="value">{formatMoney(stats.total_revenue, currency)}</dd>
        </div>
        <div class="figure">
          <dt>Commission</dt>
          <dd class="value">{formatMoney(stats.total_commission, currency)}</dd>
        </div>
      </dl>

      <section aria-labelledby="links-title">
        <h2 id="links-title">Links</h2>
        {links.rows.length === 0 ? (
          <p class="muted">No links yet: add one, and the partner shares any page of your site with it.</p>
        ) : links.rows.every((l) => shareableLink(program, l)) ? null : (
          <p class="hint">
            <a href={programPath(program, '/settings')}>Add the program's website address in Settings to get shareable links</a>.
          </p>
        )}
        {links.rows.length === 0 ? null : (
          <ul class="links">
            {links.rows.map((l) => (
              <li>
                <SharedLink program={program} link={l} />
                <details class="inline">
                  <summary class="button">Edit</summary>
                  <form method="post" action={`${base}/links/${l.id}`} class="row">
                    <Csrf ctx={ctx} />
                    <label for={`value-${l.id}`}>Value</label>
                    <input id={`value-${l.id}`} name="value" value={l.value} required maxlength={200} />
                    <button type="submit">Save link</button>
                  </form>
                </details>
                <form method="post" action={`${base}/links/${l.id}/delete`} class="inline">
                  <Csrf ctx={ctx} />
                  <button
                    type="submit"
                    class="danger"
                    data-confirm={`Delete the link ?${l.param}=${l.value}? It stops counting clicks at once.`}
                  >
                    Delete
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <form method="post" action={`${base}/links`} class="row">
          <Csrf ctx={ctx} />
          <label for="link-param">Parameter</label>
          <select id="link-param" name="param">
            {program.url_params.map((p) => (
              <option value={p}>{p}</option>
            ))}
          </select>
          <label for="link-value">Value</label>
          <input id="link-value" name="value" required maxlength={200} placeholder="alice" />
          <button type="submit">Add link</button>
        </form>
      </section>

      <section aria-labelledby="customers-title">
        <h2 id="customers-title">Latest customers</h2>
        {customers.rows.length === 0 ? (
          <p class="muted">No customers yet.</p>
        ) : (
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Customer</th>
                <th scope="col">Status</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {customers.rows.map((c) => (
                <tr>
                  <th scope="row">{c.email ?? c.name ?? c.id}</th>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>{day(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
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
        {payouts.rows.length === 0 ? (
          <p class="muted">No payouts yet.</p>
        ) : (
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Commissions
                </th>
              </tr>
            </thead>
            <tbody>
              {payouts.rows.map((p) => (
                <tr>
                  <th scope="row">{day(p.created_at)}</th>
                  <td>
                    <StatusBadge status={p.status} />
                  </td>
                  <td class="num">{formatMoney(p.amount, p.currency)}</td>
                  <td class="num">{p.commission_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="edit-title">
        <h2 id="edit-title">Details and notes</h2>
        <form method="post" action={base} class="stack">
          <Csrf ctx={ctx} />
          <label for="edit-first">First name</label>
          <input id="edit-first" name="first_name" value={partner.first_name} required maxlength={100} />
          <label for="edit-last">Last name</label>
          <input id="edit-last" name="last_name" value={partner.last_name} required maxlength={100} />
          <label for="edit-email">E-mail</label>
          <input id="edit-email" name="email" type="email" value={partner.email} required maxlength={254} />
          <label for="edit-company">Company</label>
          <input id="edit-company" name="company_name" value={partner.company_name ?? ''} maxlength={200} />
          <label for="edit-note">Internal note (never shown to the partner)</label>
          <textarea id="edit-note" name="internal_note" rows={3} maxlength={2000}>
            {partner.internal_note ?? ''}
          </textarea>
          <button type="submit">Save</button>
        </form>
      </section>
    </Layout>
  );
}

function StatusActions({ ctx, partner, base }: { ctx: ProgramPageContext; partner: PartnerObject; base: string }) {
  const action = `${base}/status`;
  if (partner.status === 'pending') {
    return (
      <div class="actions">
        <form method="post" action={action} class="inline">
          <Csrf ctx={ctx} />
          <button type="submit" name="action" value="approve" class="primary">
            Approve
          </button>
        </form>
        <details class="inline">
          <summary class="button">Reject…</summary>
          <form method="post" action={action} class="stack">
            <Csrf ctx={ctx} />
            <label for="rejection-note">Note to the partner (optional)</label>
            <textarea id="rejection-note" name="rejection_note" rows={2} maxlength={2000} />
            <button type="submit" name="action" value="reject" class="danger">
              Reject partner
            </button>
          </form>
        </details>
      </div>
    );
  }
  if (partner.status === 'active') {
    return (
      <details class="actions">
        <summary class="button">Suspend…</summary>
        <form method="post" action={action} class="stack">
          <Csrf ctx={ctx} />
          <label for="suspension-reason">Reason (optional)</label>
          <textarea id="suspension-reason" name="suspension_reason" rows={2} maxlength={2000} />
          <button type="submit" name="action" value="suspend" class="danger">
            Suspend partner
          </button>
        </form>
      </details>
    );
  }
  return (
    <div class="actions">
      {partner.rejection_note ? <p class="muted">Rejection note: {partner.rejection_note}</p> : null}
      {partner.suspension_reason ? <p class="muted">Suspended: {partner.suspension_reason}</p> : null}
      <form method="post" action={action} class="inline">
        <Csrf ctx={ctx} />
        <button type="submit" name="action" value="reactivate">
          Reactivate
        </button>
      </form>
    </div>
  );
}
