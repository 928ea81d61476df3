import { formatMoney } from '../money.js';
import { StatusBadge } from '../pages/components.js';
import { customerLabel, day, partnerName } from '../pages/format.js';
import { DataTable } from '../pages/table.js';
import type { ShownCommission } from '../resources/commissions/commissions.service.js';
import { type ProgramPageContext, programPath } from './context.js';

/** A commission's status, with the reason given to the partner when it was rejected with one. */
export function CommissionStatus({ commission }: { commission: { status: string; rejection_reason: string | null } }) {
  return (
    <>
      <StatusBadge status={commission.status} />
      {commission.status === 'rejected' && commission.rejection_reason ? (
        <span class="sub">{`Reason: ${commission.rejection_reason}`}</span>
      ) : null}
    </>
  );
}

/** A commission in words, where its id would otherwise stand: "the commission of 2026-03-01 for $9.80 to Emma Stone". */
export function commissionInWords(c: ShownCommission, fallbackCurrency: string): string {
  const to = c.partner ? ` to ${partnerName(c.partner)}` : '';
  return `the commission of ${day(c.created_at)} for ${formatMoney(c.amount, c.currency || fallbackCurrency)}${to}`;
}

/**
 * A table of commissions (the commissions list, and a partner's, customer's or payout's own),
 * with a checkbox per row for the bulk form `bulkForm` when there is one (those in `chosen` ticked).
 */
export function CommissionTable({
  ctx,
  rows,
  bulkForm,
  chosen,
  showPartner,
  showCustomer = true,
  empty = 'No commissions.',
}: {
  ctx: ProgramPageContext;
  rows: ShownCommission[];
  bulkForm?: string;
  chosen?: ReadonlySet<string>;
  showPartner: boolean;
  showCustomer?: boolean;
  empty?: string;
}) {
  const program = ctx.program;
  const currency = (c: ShownCommission) => c.currency || program.currency_code;
  return (
    <DataTable
      caption="Commissions"
      rows={rows}
      empty={empty}
      choose={
        bulkForm
          ? {
              form: bulkForm,
              name: 'ids',
              value: (c) => c.id,
              label: (c) => `Choose ${commissionInWords(c, program.currency_code)}`,
              allLabel: 'Choose every commission on this page',
              checked: chosen ? (c) => chosen.has(c.id) : undefined,
            }
          : undefined
      }
      columns={[
        { head: 'Created', cell: (c) => day(c.created_at) },
        {
          head: 'Partner',
          when: showPartner,
          cell: (c) => (c.partner ? <a href={programPath(program, `/partners/${c.partner.id}`)}>{partnerName(c.partner)}</a> : '—'),
        },
        {
          head: 'Customer',
          when: showCustomer,
          // Without the customer expanded (or when it was deleted), a link to its page, never its id as text.
          cell: (c) =>
            c.customer ? (
              <a href={programPath(program, `/customers/${c.customer.id}`)}>{customerLabel(c.customer)}</a>
            ) : c.customer_id ? (
              <a href={programPath(program, `/customers/${c.customer_id}`)}>Customer's page</a>
            ) : (
              '—'
            ),
        },
        { head: 'Status', cell: (c) => <CommissionStatus commission={c} /> },
        { head: 'Revenue', numeric: true, cell: (c) => (c.revenue === null ? '—' : formatMoney(c.revenue, currency(c))) },
        { head: 'Commission', numeric: true, cell: (c) => formatMoney(c.amount, currency(c)) },
      ]}
    />
  );
}
