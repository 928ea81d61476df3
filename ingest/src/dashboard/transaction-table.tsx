import { formatMoney } from '../money.js';
import { StatusBadge } from '../pages/components.js';
import { customerLabel, day, partnerName } from '../pages/format.js';
import { DataTable } from '../pages/table.js';
import type { TransactionObject } from '../resources/transactions/transactions.schema.js';
import { type ProgramPageContext, programPath } from './context.js';

/**
 * A table of transactions (the list, and a customer's own where `showCustomer` is false): each row
 * links to its payment's page by its date, never showing an id.
 */
export function TransactionTable({
  ctx,
  rows,
  showCustomer,
  empty = 'No transactions.',
}: {
  ctx: ProgramPageContext;
  rows: TransactionObject[];
  showCustomer: boolean;
  empty?: string;
}) {
  const program = ctx.program;
  return (
    <DataTable
      caption="Transactions"
      rows={rows}
      empty={empty}
      columns={[
        {
          head: 'Paid',
          cell: (t) => (
            <>
              <a href={programPath(program, `/transactions/${t.id}`)}>{day(t.created_at)}</a>
              {t.product_name ? <span class="sub">{t.product_name}</span> : null}
            </>
          ),
        },
        {
          head: 'Customer',
          when: showCustomer,
          cell: (t) => (
            <a href={programPath(program, `/customers/${t.customer_id}`)}>{t.customer ? customerLabel(t.customer) : "Customer's page"}</a>
          ),
        },
        {
          head: 'Partner',
          when: showCustomer,
          cell: (t) => (
            <a href={programPath(program, `/partners/${t.partner_id}`)}>{t.partner ? partnerName(t.partner) : "Partner's page"}</a>
          ),
        },
        { head: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
        { head: 'Amount', numeric: true, cell: (t) => formatMoney(t.amount, t.currency) },
        { head: 'Refunded', numeric: true, cell: (t) => (t.refunded_amount === 0 ? '—' : formatMoney(t.refunded_amount, t.currency)) },
      ]}
    />
  );
}
