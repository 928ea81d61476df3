import type { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { idField } from '../../http/fields.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { count, customerLabel, day, partnerName, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import { listCommissions, type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import {
  CUSTOMER_STATUSES,
  CustomerListQuery,
  type CustomerObject,
  type CustomerStatsObject,
} from '../../resources/customers/customers.schema.js';
import { listCustomers, retrieveCustomer } from '../../resources/customers/customers.service.js';
import { firstPaymentDates } from '../../resources/transactions/transactions.repository.js';
import type { TransactionObject } from '../../resources/transactions/transactions.schema.js';
import { listTransactions } from '../../resources/transactions/transactions.service.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Layout } from '../layout.js';
import { checkPartnerFilter } from '../list-filters.js';
import { TransactionTable } from '../transaction-table.js';

const PAGE_SIZE = 25;

export const customerNotices: Record<string, string> = {};

const CustomerFilters = z.strictObject({
  search: CustomerListQuery.shape.search,
  status: z.enum(CUSTOMER_STATUSES).optional(),
  partner_id: idField.optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof CustomerFilters>;

const partnerLabel = partnerName;

export function registerCustomersPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  router.get('/programs/:programId/customers', async (req, res) => {
    const ctx = await contextOf(res, 'customers', req.params.programId);
    const org = ctx.user.organization_id;
    const filters = fromFields(CustomerFilters, req.query, ['search', 'status', 'partner_id', 'starting_after', 'ending_before'], 'query');
    await checkPartnerFilter(deps, ctx, filters.partner_id);
    const page = await listCustomers(db, org, {
      program_id: ctx.program.id,
      search: filters.search,
      status: filters.status,
      partner_id: filters.partner_id,
      starting_after: filters.starting_after,
      ending_before: filters.ending_before,
      limit: PAGE_SIZE,
      expand: ['partner'],
    });
    const firstPaid = await firstPaymentDates(
      db,
      org,
      page.rows.map((c) => c.id),
    );
    sendPage(res, <CustomerListPage ctx={ctx} page={page} filters={filters} firstPaid={firstPaid} />);
  });

  router.get('/programs/:programId/customers/:customerId', async (req, res) => {
    const ctx = await contextOf(res, 'customers', req.params.programId);
    const org = ctx.user.organization_id;
    const customer = (await retrieveCustomer(db, org, req.params.customerId, {
      expand: ['partner'],
      include: ['stats'],
    })) as CustomerObject & {
      stats: CustomerStatsObject;
    };
    if (customer.program_id !== ctx.program.id) throw notFound('customer', req.params.customerId);
    const scope = { program_id: ctx.program.id, customer_id: customer.id, limit: PAGE_SIZE };
    const [transactions, commissions, firstPaid] = await Promise.all([
      listTransactions(db, org, scope),
      listCommissions(db, org, scope).then((page) => withStoredFields(db, page)),
      firstPaymentDates(db, org, [customer.id]),
    ]);
    sendPage(
      res,
      <CustomerPage
        ctx={ctx}
        customer={customer}
        transactions={transactions}
        commissions={commissions}
        firstPaid={firstPaid.get(customer.id) ?? null}
      />,
    );
  });
}

function CustomerListPage({
  ctx,
  page,
  filters,
  firstPaid,
}: {
  ctx: ProgramPageContext;
  page: Page<CustomerObject>;
  filters: Filters;
  firstPaid: Map<string, Date>;
}) {
  const program = ctx.program;
  const base = programPath(program, '/customers');
  const kept = { search: filters.search, status: filters.status, partner_id: filters.partner_id };
  const filtered = Object.values(kept).some(Boolean);
  return (
    <Layout ctx={ctx} title="Customers">
      <div class="page-head">
        <h1>Customers</h1>
      </div>
      <search>
        <form class="filters" method="get" action={base}>
          <label for="search">Search</label>
          <input id="search" name="search" type="search" value={filters.search ?? ''} maxlength={254} placeholder="Part of the e-mail" />
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="">Any</option>
            {CUSTOMER_STATUSES.map((s) => (
              <option value={s} selected={filters.status === s}>
                {s}
              </option>
            ))}
          </select>
          <label for="partner_id">Partner id</label>
          <input id="partner_id" name="partner_id" value={filters.partner_id ?? ''} maxlength={64} placeholder="prt_…" />
          <button type="submit">Filter</button>
          {filtered ? <a href={base}>Clear</a> : null}
        </form>
      </search>
      {page.rows.length === 0 ? (
        <p class="empty">
          {filtered
            ? 'No customer matches these filters. Clear them to see every customer.'
            : 'No customers yet. A customer is recorded when someone a partner referred signs up: through the script on your signup form, POST /v1/customers from your server, or Stripe. Add partners and share their links first.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Customer</th>
                <th scope="col">Partner</th>
                <th scope="col">Status</th>
                <th scope="col">Lead</th>
                <th scope="col">First payment</th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((c) => {
                const paid = firstPaid.get(c.id);
                return (
                  <tr>
                    <th scope="row">
                      <a href={programPath(program, `/customers/${c.id}`)}>{customerLabel(c)}</a>
                      {c.email && c.name ? <span class="sub">{c.name}</span> : null}
                    </th>
                    <td>
                      <a href={programPath(program, `/partners/${c.partner_id}`)}>{c.partner ? partnerLabel(c.partner) : c.partner_id}</a>
                    </td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td>{day(c.lead_at)}</td>
                    <td>{paid ? day(paid) : <span class="muted">not yet</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} base={base} filters={kept} cursor={filters as Cursor} />
    </Layout>
  );
}

function CustomerPage(props: {
  ctx: ProgramPageContext;
  customer: CustomerObject & { stats: CustomerStatsObject };
  transactions: Page<TransactionObject>;
  commissions: Page<ShownCommission>;
  firstPaid: Date | null;
}) {
  const { ctx, customer: c, transactions, commissions, firstPaid } = props;
  const program = ctx.program;
  const currency = program.currency_code;
  return (
    <Layout ctx={ctx} title={customerLabel(c)}>
      <p class="crumbs">
        <a href={programPath(program, '/customers')}>Customers</a> /
      </p>
      <div class="page-head">
        <h1>
          {customerLabel(c)} <StatusBadge status={c.status} />
        </h1>
      </div>
      <p class="sub">
        {c.name && c.email ? `${c.name} · ` : ''}
        {c.id}
        {c.customer_id ? ` · your id ${c.customer_id}` : ''}
        {c.plan ? ` · plan ${c.plan}` : ''}
      </p>
      <dl class="facts">
        <div>
          <dt>Partner</dt>
          <dd>
            <a href={programPath(program, `/partners/${c.partner_id}`)}>{c.partner ? partnerLabel(c.partner) : c.partner_id}</a>
          </dd>
        </div>
        <div>
          <dt>Lead</dt>
          <dd>{time(c.lead_at)}</dd>
        </div>
        <div>
          <dt>First payment</dt>
          <dd>{firstPaid ? time(firstPaid) : 'not yet'}</dd>
        </div>
        <div>
          <dt>Active since</dt>
          <dd>{c.active_at ? time(c.active_at) : '—'}</dd>
        </div>
      </dl>
      <dl class="figures">
        <div class="figure">
          <dt>Revenue (net of refunds)</dt>
          <dd class="value">{formatMoney(c.stats.total_revenue, currency)}</dd>
        </div>
        <div class="figure">
          <dt>Commission</dt>
          <dd class="value">{formatMoney(c.stats.total_commission, currency)}</dd>
        </div>
        <div class="figure">
          <dt>Payments</dt>
          <dd class="value">{count(c.stats.total_orders)}</dd>
        </div>
      </dl>

      <section aria-labelledby="transactions-title">
        <h2 id="transactions-title">Transactions</h2>
        <TransactionTable
          ctx={ctx}
          rows={transactions.rows}
          showCustomer={false}
          empty={`No payments yet. When this customer pays, record it with POST /v1/transactions (customer_id ${c.id}) or let Stripe report it: the partner's commission is made at once.`}
        />
        {transactions.has_more ? (
          <p>
            <a href={programPath(program, `/transactions?customer_id=${c.id}`)}>All {transactions.total_count} transactions</a>
          </p>
        ) : null}
      </section>

      <section aria-labelledby="commissions-title">
        <h2 id="commissions-title">Commissions</h2>
        <CommissionTable ctx={ctx} rows={commissions.rows} showPartner={false} empty="No commissions for this customer yet." />
      </section>
    </Layout>
  );
}
