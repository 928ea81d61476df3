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
] as const;

export const EXPORT_FORMATS = ['paypal', 'wise', 'csv'] as const;

export const PayoutGenerate = z
  .strictObject({
    program_id: idField,
    up_to: storedTimestampField
      .optional()
      .meta({ description: 'Only commissions created up to this time (inclusive); left out, up to now' }),
    partner_ids: z
      .array(idField)
      .min(1)
      .max(1000)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id')
      .optional()
      .meta({ description: 'Only these partners of the program' }),
  })
  .meta({ id: 'PayoutGenerate' });
export type PayoutGenerateInput = z.output<typeof PayoutGenerate>;

export const PayoutUpdate = z
  .strictObject({
    status: z.enum(PAYOUT_STATUSES).optional(),
    reference: optionalText(255)
      .optional()
      .meta({ description: 'Your reference of the payment (the PayPal, Wise or bank transaction id)' }),
    reason: optionalText(1000).optional().meta({ description: 'Why it failed or was canceled' }),
  })
  .meta({ id: 'PayoutUpdate' });
export type PayoutUpdateInput = z.output<typeof PayoutUpdate>;

const expandParam = multiValue(['partner']);
export const PayoutListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
  status: z.enum(PAYOUT_STATUSES).optional(),
  expand: expandParam.optional(),
});
export type PayoutListInput = z.output<typeof PayoutListQuery>;
export const PayoutRetrieveQuery = z.strictObject({ expand: expandParam.optional() });
/** A payout's commissions are in the commission list's field set, with its `include[]`. */
export const PayoutCommissionsQuery = listQuery({ include: commissionIncludeParam.optional() });
export type PayoutCommissionsInput = z.output<typeof PayoutCommissionsQuery>;

export const BalanceListQuery = listQuery({ partner_id: idField.optional(), expand: expandParam.optional() });
export type BalanceListInput = z.output<typeof BalanceListQuery>;

export const PayoutExportQuery = z.strictObject({
  program_id: idField,
  format: z.enum(EXPORT_FORMATS),
  status: z.enum(PAYOUT_STATUSES).optional().meta({ description: 'Default: pending' }),
  currency: currencyCode.optional().meta({ description: 'Only payouts in this currency (a PayPal file holds one currency)' }),
});
export type PayoutExportInput = z.output<typeof PayoutExportQuery>;

/** The operations' descriptions in the OpenAPI document. */
export const payoutDocs = {
  generate:
    "Groups every partner's approved commissions that are in no payout (refund entries netted) into one payout per partner and currency, when it reaches the minimum (the partner's group's `minimum_payout`, else the program's) and the partner has a payout method. A reward taken brings its approved refund entries, even ones made after `up_to`. Partners left out are listed in `skipped` with the reason; a negative balance stays for the next payout. Generations of one program run one at a time, and never while a refund runs, so a commission is never in two payouts.",
  update:
    'Status changes: pending → processing → paid; pending or processing → failed or canceled, which makes its commissions payable again. Marking it paid marks every commission in it paid, with this payout as their `payout_id`. A paid, failed or canceled payout cannot change. While it is pending, refunds change it at once: the entry of a partial refund joins it, a commission refunded in full leaves it, and one left with nothing to pay is canceled; once processing or paid, a refund becomes an entry the next payout takes back.',
  export:
    'A file for a batch upload: `paypal` (PayPal Payouts, no header, one currency per file: the PayPal payouts in it), `wise` (Wise batch "send by e-mail" template: the Wise payouts in it) or `csv` (every payout, with a header). Amounts in the currency\'s major unit.',
  balances:
    "What each partner of the program is owed, per currency: `pending` (not yet approved), `payable` (approved, in no payout, net of refund entries), `in_payouts` (in payouts not paid yet) and `paid`. A partner's refund entries count where their status puts them.",
} as const;

export const Payout = z
  .object({
    id: z.string(),
    status: z.enum(PAYOUT_STATUSES),
    amount: z.number().int().meta({ description: 'Cents: the sum of its commissions, refund entries included' }),
    currency: z.string(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    payout_method: payoutMethod,
    payout_details: z.record(z.string(), z.string()).meta({ description: "The partner's payout details when the payout was made" }),
    commission_count: z.number().int(),
    period_start: isoString.meta({ description: 'When its oldest commission was made' }),
    period_end: isoString.meta({ description: 'When its newest commission was made' }),
    reference: z.string().nullable(),
    reason: z.string().nullable(),
    paid_at: isoString.nullable(),
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
        reason: z.enum(SKIP_REASONS),
      }),
    ),
  })
  .meta({ id: 'PayoutGeneration' });
export type GenerateResultObject = z.output<typeof GenerateResult>;

const Amounts = z.object({
  currency: z.string(),
  pending: z.number().int(),
  payable: z.number().int(),
  in_payouts: z.number().int(),
  paid: z.number().int(),
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
