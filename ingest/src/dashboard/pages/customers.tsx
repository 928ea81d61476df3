import type { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { formatMoney } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Field } from '../../pages/fields.js';
import {
  CsvLink,
  FilterForm,
  type ListFilters,
  PickerChoiceLists,
  PickerFields,
  readListFilters,
  StatusField,
} from '../../pages/filters.js';
import { count, customerLabel, day, partnerName, time } from '../../pages/format.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { RecordId } from '../../pages/record-id.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { listCommissions, type ShownCommission, withStoredFields } from '../../resources/commissions/commissions.service.js';
import {
  CUSTOMER_STATUSES,
  CustomerListQuery,
  type CustomerObject,
  type CustomerStatsObject,
} from '../../resources/customers/customers.schema.js';
import { listCustomers, retrieveCustomer } from '../../resources/customers/customers.service.js';
import type { TransactionObject } from '../../resources/transactions/transactions.schema.js';
import { firstPayments, listTransactions } from '../../resources/transactions/transactions.service.js';
import { CommissionTable } from '../commission-table.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Layout } from '../layout.js';
import { csvPath, customersCsvQuery, listPickers } from '../list-filters.js';
import { TransactionTable } from '../transaction-table.js';

const PAGE_SIZE = 25;

export const customerNotices: Record<string, string> = {};

/** The list's own filters (the partner picker's are read by listPickers): `search` is the API's, part of the e-mail. */
const CustomerFilters = z.strictObject({
  search: CustomerListQuery.shape.search,
  status: z.enum(CUSTOMER_STATUSES).optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof CustomerFilters>;
const FILTER_FIELDS = ['search', 'status', 'starting_after', 'ending_before'];
const FILTER_LABELS = { search: 'Search', status: 'Status' };

const partnerLabel = partnerName;

export function registerCustomersPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  router.get('/programs/:programId/customers', async (req, res) => {
    const ctx = await contextOf(res, 'customers', req.params.programId);
    const org = ctx.user.organization_id;
    const view = await readListFilters({
      base: programPath(ctx.program, '/customers'),
      query: req.query,
      ...listPickers(db, ctx, ['partner'], req.query),
      schema: CustomerFilters,
      fields: FILTER_FIELDS,
      labels: FILTER_LABELS,
      keep: (f) => ({ search: f.search, status: f.status }),
    });
    if (view.moved) return res.redirect(303, view.moved);
    const f = view.filters;
    const page =
      view.ready && f
        ? await listCustomers(db, org, {
            program_id: ctx.program.id,
            search: f.search,
            status: f.status,
            partner_id: view.kept.partner_id,
            starting_after: f.starting_after,
            ending_before: f.ending_before,
            limit: PAGE_SIZE,
            expand: ['partner'],
          })
        : null;
    const firstPaid = await firstPayments(
      db,
      org,
      (page?.rows ?? []).map((c) => c.id),
    );
    sendPage(res, <CustomerListPage ctx={ctx} view={view} page={page} firstPaid={firstPaid} />, view.refusal?.status ?? 200);
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
      firstPayments(db, org, [customer.id]),
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
  view,
  page,
  firstPaid,
}: {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  page: Page<CustomerObject> | null;
  firstPaid: Map<string, Date>;
}) {
  const program = ctx.program;
  const base = programPath(program, '/customers');
  const { kept, typed } = view;
  const filtered = Object.values(kept).some(Boolean);
  return (
    <Layout ctx={ctx} title="Customers">
      <div class="page-head">
        <h1>Customers</h1>
        {page ? <CsvLink href={csvPath(program, 'customers', customersCsvQuery(kept))} /> : null}
      </div>
      <FilterForm action={base} label="Filter customers" filtered={filtered}>
        <Field
          name="search"
          label="Search"
          type="search"
          value={typed.search}
          maxlength={254}
          placeholder="Part of the e-mail"
          refusal={view.refusal}
        />
        <StatusField statuses={CUSTOMER_STATUSES} view={view} />
        <PickerFields view={view} />
      </FilterForm>
      <PickerChoiceLists view={view} />
      {page ? (
        <>
          <DataTable
            caption="Customers"
            rows={page.rows}
            empty={
              filtered
                ? 'No customer matches these filters. Clear them to see every customer.'
                : 'No customers yet. A customer is recorded when someone a partner referred signs up: through the script on your signup form, POST /v1/customers from your server, or Stripe. Add partners and share their links first.'
            }
            columns={[
              {
                head: 'Customer',
                cell: (c) => (
                  <>
                    <a href={programPath(program, `/customers/${c.id}`)}>{customerLabel(c)}</a>
                    {c.email && c.name ? <span class="sub">{c.name}</span> : null}
                  </>
                ),
              },
              {
                head: 'Partner',
                cell: (c) => (
                  <a href={programPath(program, `/partners/${c.partner_id}`)}>{c.partner ? partnerLabel(c.partner) : "Partner's page"}</a>
                ),
              },
              { head: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
              { head: 'Lead', cell: (c) => day(c.lead_at) },
              {
                head: 'First payment',
                cell: (c) => {
                  const paid = firstPaid.get(c.id);
                  return paid ? day(paid) : <span class="muted">not yet</span>;
                },
              },
            ]}
          />
          <Pager page={page} base={base} filters={kept} cursor={view.filters as Cursor} />
        </>
      ) : null}
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
      {c.name && c.email ? <p class="sub">{c.name}</p> : null}
      <dl class="facts">
        <div>
          <dt>Partner</dt>
          <dd>
            <a href={programPath(program, `/partners/${c.partner_id}`)}>{c.partner ? partnerLabel(c.partner) : "Partner's page"}</a>
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
        {c.plan ? (
          <div>
            <dt>Plan</dt>
            <dd>{c.plan}</dd>
          </div>
        ) : null}
        {c.customer_id ? (
          <div>
            <dt>Your id for them</dt>
            <dd>{c.customer_id}</dd>
          </div>
        ) : null}
        <div>
          <dt>Customer id</dt>
          <dd>
            <RecordId id={c.id} />
          </dd>
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
          empty="No payments yet. When this customer pays, record it with POST /v1/transactions (its customer_id: the customer id above) or let Stripe report it: the partner's commission is made at once."
        />
        {transactions.has_more ? (
          <p>
            <a href={programPath(program, `/transactions?customer_id=${c.id}`)}>All {transactions.total_count} transactions</a>
          </p>
        ) : null}
      </section>

      <section aria-labelledby="commissions-title">
        <h2 id="commissions-title">Commissions</h2>
        <CommissionTable
          ctx={ctx}
          rows={commissions.rows}
          showPartner={false}
          showCustomer={false}
          empty="No commissions for this customer yet."
        />
      </section>
    </Layout>
  );
}
