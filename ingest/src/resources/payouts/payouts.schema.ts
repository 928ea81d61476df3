import { z } from 'zod';
import { currencyCode, idField, isoString, optionalText, payoutMethod, storedTimestampField } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { commissionIncludeParam } from '../commissions/commissions.schema.js';
import { ExpandedPartner } from '../partners/partners.schema.js';

export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Why a partner got no payout from a generation. */
export const SKIP_REASONS = [
  'below_minimum',
  'no_payout_method',
  'missing_payout_details',
  'negative_balance',
  'nothing_owed',
  'partner_deleted',
  'on_hold',
] as const;

export const EXPORT_FORMATS = ['paypal', 'wise', 'csv'] as const;

export const PayoutGenerate = z
  .strictObject({
    program_id: idField,
    up_to: storedTimestampField.optional().meta({
      description:
        'Only commissions created up to this time (inclusive); left out, up to now. A reward taken still brings its approved refund entries made after it.',
    }),
    partner_ids: z
      .array(idField)
      .min(1)
      .max(1000)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id')
      .optional()
      .meta({ description: 'Only these partners of the program (1–1000 distinct ids)' }),
  })
  .meta({ id: 'PayoutGenerate' });
export type PayoutGenerateInput = z.output<typeof PayoutGenerate>;

export const PayoutUpdate = z
  .strictObject({
    status: z.enum(PAYOUT_STATUSES).optional().meta({
      description:
        'pending → processing → paid, or pending → paid; pending or processing → failed or canceled. paid, failed and canceled are final (400).',
    }),
    reference: optionalText(255)
      .optional()
      .meta({ description: 'Your reference of the payment (the PayPal, Wise or bank transaction id)' }),
    reason: optionalText(1000).optional().meta({ description: 'Why it failed or was canceled (optional), up to 1,000 characters' }),
  })
  .meta({ id: 'PayoutUpdate' });
export type PayoutUpdateInput = z.output<typeof PayoutUpdate>;

const expandParam = multiValue(['partner']).meta({
  description: 'partner: adds `partner` (id, first_name, last_name, email, company_name, status, created_at)',
});
/** Here and on balances, a partner of another program is named, not silently matched by nothing. */
const partnerFilter = idField
  .optional()
  .meta({ description: "Only this partner's; a partner that is not the program's → 404 (`param: partner_id`)" });
export const PayoutListQuery = listQuery({
  program_id: idField,
  partner_id: partnerFilter,
  status: z.enum(PAYOUT_STATUSES).optional(),
  expand: expandParam.optional(),
});
export type PayoutListInput = z.output<typeof PayoutListQuery>;
export const PayoutRetrieveQuery = z.strictObject({ expand: expandParam.optional() });
/** A payout's commissions are in the commission list's field set, with its `include[]`. */
export const PayoutCommissionsQuery = listQuery({ include: commissionIncludeParam.optional() });
export type PayoutCommissionsInput = z.output<typeof PayoutCommissionsQuery>;

export const BalanceListQuery = listQuery({ partner_id: partnerFilter, expand: expandParam.optional() });
export type BalanceListInput = z.output<typeof BalanceListQuery>;

export const PayoutExportQuery = z.strictObject({
  program_id: idField,
  format: z.enum(EXPORT_FORMATS).meta({ description: 'paypal, wise or csv (see the operation)' }),
  status: z.enum(PAYOUT_STATUSES).optional().meta({ description: 'Only payouts of this status; default: pending' }),
  currency: currencyCode.optional().meta({
    description: 'Only payouts in this currency (ISO 4217). A PayPal file holds one currency: payouts in several → 400 asking for it.',
    example: 'USD',
  }),
});
export type PayoutExportInput = z.output<typeof PayoutExportQuery>;

/** The operations' descriptions in the OpenAPI document. */
const BEYOND = 'Beyond the spec (payouts are svc’s own).';

export const payoutDocs = {
  generate: `${BEYOND} Takes the program's \`approved\` commissions that are in no unpaid payout (created up to \`up_to\`, default now; of \`partner_ids\` when given), sums them per partner and currency (refund entries netting), and makes one \`pending\` payout of each sum that a partner is owed, at least their minimum (the partner's group's \`minimum_payout\`, else the program's: one number of minor units for every currency, 5000 is $50.00 but ¥5,000), when they have a payout method. A reward taken brings its approved refund entries along, even ones made after \`up_to\`: a payout never pays a sale without its refunds. A partner is paid whatever their status (a suspended partner is still owed what they earned); deleted partners are skipped. The answer lists \`up_to\` (the cut-off used), the \`payouts\` made and the \`skipped\` partners with their sum, minimum and reason (see \`reason\`); their commissions stay payable for the next generation. A program's generations run one at a time (also across processes), and never while a refund of the program runs; a commission is in at most one unpaid payout, so generating again right after finds nothing new.`,
  list: `${BEYOND} The payouts of the program named by \`program_id\` (required), filtered by \`status\` and \`partner_id\` (a partner that is not the program's → 404).`,
  retrieve: `${BEYOND} \`expand[]=partner\` adds the partner. The id of a commission marked paid by itself (\`PUT /v1/commissions/{id}\`) names no payout: 404.`,
  commissions: `${BEYOND} The commissions in the payout (or that it paid), refund entries included, in the commission list's field set; \`include[]=rejection_reason\` as on the commission list.`,
  update: `${BEYOND} Status changes: pending → processing → paid, or pending → paid; pending or processing → failed or canceled (with a \`reason\` if you like), which makes its commissions payable again. A paid, failed or canceled payout cannot change (400). Mark it processing when its file is at PayPal, Wise or the bank: from then on refunds no longer change it.

Marking it paid marks every commission in it paid, with this payout as their \`payout_id\`, in the same SQL transaction, and queues the partner's "payout paid" e-mail (when their \`payout_paid_email_active\` is on). While it is unpaid, and after it paid them, its commissions cannot change status or amount or be deleted (400 naming the payout): a paid payout's commissions are exactly what it paid.

Refunds (full or partial) and a transaction's delete take effect at once, so that an exported file never pays what was refunded:

- \`pending\`: its amount changes in the refund's own SQL transaction. A commission refunded in full, or rejected by a delete, leaves it with its refund entries; a partial refund puts its refund entry (the negative commission) into it, next to its reward; a refund entry approved later (by hand or when due) joins its reward's pending payout too. \`amount\` is always the sum of the commissions in it, refund entries included, and \`commission_count\` their number. A refund entry joins only its reward's payout (same currency), never one of another currency.
- A pending payout that a refund leaves with nothing, or less than nothing, to pay is \`canceled\`, with the \`reason\` "Nothing left to pay: its commissions were refunded, rejected or deleted" and its last \`amount\` and \`commission_count\`, and its commissions go back to the partner's balance; what the partner then owes (\`payable\` below 0) is taken from their next earnings. A payout still above 0 stays, with its lower amount, even below the minimum (cancel it yourself to wait for more).
- \`processing\` or \`paid\`: it keeps its amount and commissions; the refund adds an \`approved\` refund entry, which the partner's next payout takes back.

Events: \`payout.created\`, \`payout.updated\` (also when a refund changes its amount, with the amount before in \`previous_attributes\`), \`payout.paid\`, \`payout.failed\`, \`payout.canceled\` (also when a refund leaves it nothing to pay). See ingest/docs/payouts.md.`,
  export: `${BEYOND} A CSV file of the program's payouts of \`status\` (default pending) for a batch upload, streamed as it is read, named like \`payouts-acme-pending-2026-11-30-paypal.csv\`. Amounts are in the currency's major unit (\`1234.56\`; \`500\` for yen).

- \`paypal\`: PayPal Payouts (web upload), no header: recipient e-mail, amount, currency, the payout id as reference, a note, \`PAYPAL\`. The payouts whose method is PayPal; one currency per file (several → 400 asking for \`currency\`); at most 5,000 rows.
- \`wise\`: Wise batch payment, "send by e-mail" template: \`name, recipientEmail, paymentReference, receiverType, amountCurrency, amount, sourceCurrency, targetCurrency\`, with \`amountCurrency: target\` so the partner gets the exact amount, and as reference the payout id's last 10 characters (Wise's limit for some currencies). The payouts whose method is Wise; at most 1,000 rows.
- \`csv\`: every field, with a header (bank transfers, crypto, your own tools). All payouts.

More rows than the provider takes in one upload → 400 (export a currency at a time, or mark some processing first). A payout of the provider whose details hold no e-mail stops the file (400 naming it) rather than leaving someone out. The file holds the payouts made up to the moment it was asked for. Text a spreadsheet would run as a formula (a partner named \`=HYPERLINK(…)\`) is written with a leading \`'\`. Should the database fail while the file is written, the connection is cut: the client sees an incomplete download, never a short file that looks whole.`,
  balances: `${BEYOND} What each partner of the program is owed, listed over the program's partners with the list parameters, \`partner_id\` (a partner that is not the program's → 404) and \`expand[]=partner\`: per currency they have commissions in, \`pending\` (not yet approved), \`payable\` (approved and in no unpaid payout: what the next payout would pay), \`in_payouts\` (in payouts not paid yet) and \`paid\`. Refund entries count where their status puts them, so \`payable\` is net of refunds and can be negative. \`minimum_payout\` is the partner's group's, else the program's.`,
} as const;

export const Payout = z
  .object({
    id: z.string().meta({ example: 'po_…' }),
    status: z.enum(PAYOUT_STATUSES).meta({ description: 'pending, processing, paid, failed or canceled' }),
    amount: z.number().int().meta({ description: 'Cents: the sum of its commissions, refund entries included' }),
    currency: z.string(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    payout_method: payoutMethod.meta({ description: "The partner's payout method when the payout was made" }),
    payout_details: z.record(z.string(), z.string()).meta({ description: "The partner's payout details when the payout was made" }),
    commission_count: z.number().int().meta({ description: 'The number of commissions in it, refund entries included' }),
    period_start: isoString.meta({ description: 'When its oldest commission was made' }),
    period_end: isoString.meta({ description: 'When its newest commission was made' }),
    reference: z.string().nullable().meta({ description: 'Your reference of the payment, set with PUT' }),
    reason: z.string().nullable().meta({ description: 'Why it failed or was canceled' }),
    paid_at: isoString.nullable().meta({ description: 'When it was marked paid' }),
    created_at: isoString,
    updated_at: isoString,
    partner: ExpandedPartner.optional(),
  })
  .meta({ id: 'Payout' });
export type PayoutObject = z.output<typeof Payout>;

export const GenerateResult = z
  .object({
    up_to: isoString.meta({ description: 'The commissions taken were created up to then' }),
    payouts: z.array(Payout.pick({ id: true, partner_id: true, amount: true, currency: true, commission_count: true })),
    skipped: z.array(
      z.object({
        partner_id: z.string(),
        currency: z.string(),
        amount: z.number().int(),
        minimum_payout: z.number().int(),
        reason: z.enum(SKIP_REASONS).meta({
          description:
            'below_minimum; no_payout_method; missing_payout_details (PayPal or Wise without the e-mail the batch file needs); negative_balance (owing after refunds: carried forward, their next payout is smaller); nothing_owed; partner_deleted; on_hold (everything the partner is owed is held by open risk events until they are resolved: ingest/docs/risk.md)',
        }),
      }),
    ),
  })
  .meta({ id: 'PayoutGeneration' });
export type GenerateResultObject = z.output<typeof GenerateResult>;

const Amounts = z.object({
  currency: z.string(),
  pending: z.number().int().meta({ description: 'Cents not yet approved' }),
  payable: z.number().int().meta({
    description: 'Cents approved and in no unpaid payout: what the next payout would pay; net of refunds, so it can be negative',
  }),
  in_payouts: z.number().int().meta({ description: 'Cents in payouts not paid yet' }),
  paid: z.number().int().meta({ description: 'Cents paid' }),
  on_hold: z.number().int().meta({
    description:
      'Cents an open risk event holds (pending, or approved in no unpaid payout): counted neither in `pending` nor in `payable` until the event is resolved',
  }),
});

export const Balance = z
  .object({
    partner_id: z.string(),
    payout_method: payoutMethod,
    minimum_payout: z.number().int().meta({ description: "The partner's minimum: their group's, else the program's" }),
    amounts: z.array(Amounts).meta({ description: 'One entry per currency the partner has commissions in' }),
    partner: ExpandedPartner.optional(),
  })
  .meta({ id: 'Balance' });
export type BalanceObject = z.output<typeof Balance>;
