import type { PayoutRow } from '../../db/schema.js';
import { toMajorUnits } from '../../money.js';

/**
 * The batch files a payout export writes (ingest/docs/payouts.md): what each provider's batch
 * upload takes, built from a payout and its partner. Amounts are in the currency's major unit.
 */

export interface ExportPartner {
  first_name: string;
  last_name: string;
  email: string;
  company_name: string | null;
}

export interface ExportFormat {
  /** The header row, or none (PayPal's file has none). */
  header: string[] | null;
  /** The payout method whose payouts the file holds (each needs the e-mail of its details); null: every payout. */
  method: 'paypal' | 'wise' | null;
  /** A provider's file that holds a single currency. */
  oneCurrency: boolean;
  /** The most rows the provider takes in one file. */
  maxRows: number | null;
  row(payout: PayoutRow, partner: ExportPartner): string[];
}

const emailOf = (payout: PayoutRow) => payout.payout_details.email ?? '';
const nameOf = (partner: ExportPartner) => `${partner.first_name} ${partner.last_name}`.trim();

export const EXPORT_FORMATS_BY_NAME: Record<'paypal' | 'wise' | 'csv', ExportFormat> = {
  // PayPal Payouts web upload: recipient, amount, currency, reference (customer id), note, wallet.
  paypal: {
    header: null,
    method: 'paypal',
    oneCurrency: true,
    maxRows: 5000,
    row: (p) => [emailOf(p), toMajorUnits(p.amount, p.currency), p.currency, p.id, `Partner payout ${p.id}`, 'PAYPAL'],
  },
  // Wise batch payments, "send by e-mail" template: Wise asks each recipient for their bank details.
  wise: {
    header: ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'],
    method: 'wise',
    oneCurrency: false,
    maxRows: 1000,
    row: (p, partner) => [
      partner.company_name ?? nameOf(partner),
      emailOf(p),
      // Wise caps references at 10 characters for several currencies: the payout id's last ten.
      p.id.slice(-10),
      partner.company_name ? 'BUSINESS' : 'PERSON',
      'target',
      toMajorUnits(p.amount, p.currency),
      p.currency,
      p.currency,
    ],
  },
  csv: {
    header: [
      'payout_id',
      'partner_id',
      'partner_name',
      'partner_email',
      'payout_method',
      'payout_details',
      'amount',
      'currency',
      'commission_count',
      'period_start',
      'period_end',
      'status',
      'reference',
      'created_at',
    ],
    method: null,
    oneCurrency: false,
    maxRows: null,
    row: (p, partner) => [
      p.id,
      p.partner_id,
      nameOf(partner),
      partner.email,
      p.payout_method,
      JSON.stringify(p.payout_details),
      toMajorUnits(p.amount, p.currency),
      p.currency,
      String(p.commission_count),
      new Date(p.period_start).toISOString(),
      new Date(p.period_end).toISOString(),
      p.status,
      p.reference ?? '',
      new Date(p.created_at).toISOString(),
    ],
  },
};
