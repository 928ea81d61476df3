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

/**
 * A table of commissions (the commissions list, and a partner's, customer's or payout's own),
 * with a checkbox per row for the bulk form `bulkForm` when there is one.
 */
export function CommissionTable({
  ctx,
  rows,
  bulkForm,
  showPartner,
  empty = 'No commissions.',
}: {
  ctx: ProgramPageContext;
  rows: ShownCommission[];
  bulkForm?: string;
  showPartner: boolean;
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
              label: (c) => `Choose the commission of ${day(c.created_at)} for ${formatMoney(c.amount, currency(c))}`,
              allLabel: 'Choose every commission on this page',
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
          cell: (c) =>
            c.customer ? (
              <a href={programPath(program, `/customers/${c.customer.id}`)}>{customerLabel(c.customer)}</a>
            ) : (
              (c.customer_id ?? '—')
            ),
        },
        { head: 'Status', cell: (c) => <CommissionStatus commission={c} /> },
        { head: 'Revenue', numeric: true, cell: (c) => (c.revenue === null ? '—' : formatMoney(c.revenue, currency(c))) },
        { head: 'Commission', numeric: true, cell: (c) => formatMoney(c.amount, currency(c)) },
      ]}
    />
  );
}
