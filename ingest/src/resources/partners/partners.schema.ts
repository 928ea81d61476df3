import { z } from 'zod';
import {
  countryCode,
  emailField,
  idField,
  isoString,
  optionalText,
  type PAYOUT_METHODS,
  payoutMethod,
  shortText,
} from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedGroup } from '../groups/groups.schema.js';
import { ExpandedProgram, ExpandedProgramWithTerms } from '../programs/programs.schema.js';

export const PARTNER_STATUSES = ['active', 'pending', 'suspended', 'rejected'] as const;

/** The partner stats a list may be ranked by (the partner_stats counters of migration 0004): the dashboard's sorts. */
export const RANKING_STATS = ['revenue', 'commission', 'customers', 'clicks'] as const;
export type RankingStat = (typeof RANKING_STATS)[number];

const bankDetails = z.strictObject({
  account_holder_name: shortText(200).optional(),
  bank_name: shortText(200).optional(),
  iban: z
    .string()
    .regex(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/, 'must be an IBAN without spaces')
    .optional(),
  account_number: z
    .string()
    .regex(/^[0-9A-Za-z-]{4,34}$/)
    .optional(),
  routing_number: z
    .string()
    .regex(/^[0-9A-Za-z-]{3,20}$/)
    .optional(),
  sort_code: z
    .string()
    .regex(/^\d{6}$/)
    .optional(),
  swift_bic: z
    .string()
    .regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'must be an 8 or 11 character BIC')
    .optional(),
  country_code: countryCode.optional(),
  address: shortText(500).optional(),
});

/** What `payout_details` may hold for each payout method; an empty object means "not given yet". */
export const PAYOUT_DETAILS: Record<(typeof PAYOUT_METHODS)[number], z.ZodType<Record<string, string>>> = {
  paypal: z.strictObject({ email: emailField.optional() }),
  wise: z.strictObject({ email: emailField.optional() }),
  crypto: z.strictObject({
    wallet_address: z
      .string()
      .regex(/^[0-9A-Za-z:_-]{10,128}$/, 'must be a wallet address')
      .optional(),
    network: shortText(40).optional(),
    currency: shortText(12).optional(),
  }),
  bank_transfer: bankDetails,
  wire: bankDetails,
  none: z.strictObject({}),
};

const payoutDetails = z
  .record(z.string().max(64), z.string().max(500))
  .refine((o) => Object.keys(o).length <= 20, 'at most 20 fields')
  .meta({
    description:
      'Depends on payout_method: paypal/wise {email}; crypto {wallet_address, network, currency}; bank_transfer/wire {account_holder_name, bank_name, iban, account_number, routing_number, sort_code, swift_bic, country_code, address}; none {}. Every field may be left out until known; an unknown field → 400. Default on create: {}. Changing payout_method without new details clears the old details.',
  });

/** The three e-mail switches: what each sends (each queued with the change that causes it). */
const emailSwitch = (description: string) => z.boolean().meta({ description: `${description} Default true.` });

const editableFields = {
  first_name: shortText(100),
  last_name: shortText(100),
  email: emailField.meta({
    description: 'Unique in the program, compared case-insensitively (on create and update): a taken one → 409 with the existing partner',
  }),
  group_id: idField.meta({ description: "A group of the partner's program; default on create: the program's default group" }),
  company_name: optionalText(200),
  country_code: countryCode.nullable(),
  payout_method: payoutMethod.meta({ description: 'Default on create: none' }),
  payout_details: payoutDetails,
  status: z.enum(PARTNER_STATUSES).meta({
    description:
      'Default on create: active. Any status may follow any other. Only active partners earn commissions from flows; a partner of any status is still paid what they earned, and their links keep resolving.',
  }),
  completed_onboarding: z.boolean().meta({
    description:
      'Default on create: true (a partner added through the API is ready). While false, the partner is left out of the default listing.',
  }),
  rejection_note: optionalText(2000),
  internal_note: optionalText(2000),
  suspension_reason: optionalText(2000),
  first_customer_email_active: emailSwitch(
    'E-mail the partner when their first customer (a lead counts) is created: "Your first referral for {program}". Customers created at once count each other, so exactly one is the first.',
  ),
  new_customer_email_active: emailSwitch(
    'E-mail the partner for each further customer (a lead counts), and for the first one too when only this switch is on: "New referral for {program}: j•••@example.com" (the customer masked).',
  ),
  payout_paid_email_active: emailSwitch(
    'E-mail the partner when a payout to them is marked paid (the amount, the number of commissions and your reference), or when a commission of theirs is marked paid by itself (`PUT /v1/commissions/{id}`): "{program} paid you $50.00". A commission created already paid, a refund entry, or a paid commission marked paid again sends nothing.',
  ),
};

export const PartnerCreate = z
  .strictObject({
    ...editableFields,
    program_id: idField,
    send_welcome_email: z.boolean().optional().meta({
      description:
        "The spec's unnamed flag. When true, a welcome e-mail is queued with the partner, in the same SQL transaction, and sent after the commit.",
    }),
  })
  .partial()
  .required({ first_name: true, last_name: true, email: true, program_id: true })
  .meta({ id: 'PartnerCreate' });
export type PartnerCreateInput = z.output<typeof PartnerCreate>;

export const PartnerUpdate = z.strictObject(editableFields).partial().meta({ id: 'PartnerUpdate' });
export type PartnerUpdateInput = z.output<typeof PartnerUpdate>;

/** The most partners one status change takes (the dashboard's bulk actions). */
export const MAX_PARTNER_STATUS_CHANGE = 100;

/**
 * What each status action of the dashboard sets. Any status may follow any other (as
 * `PUT /v1/partners/:id` allows): an action names the status a partner moves to, not the one it
 * comes from.
 */
export const PARTNER_STATUS_ACTIONS = { approve: 'active', reject: 'rejected', suspend: 'suspended', reactivate: 'active' } as const;
export type PartnerStatusAction = keyof typeof PARTNER_STATUS_ACTIONS;

/**
 * One status action for several partners of a program, all or none
 * (ingest/docs/dashboard.md#bulk-partner-status-changes). Not an operation of the API: the
 * dashboard's bulk form is read through it. A note goes with its own action only.
 */
export const PartnerStatusChange = z
  .strictObject({
    ids: z
      .array(idField)
      .min(1, 'choose at least one partner')
      .max(MAX_PARTNER_STATUS_CHANGE, `at most ${MAX_PARTNER_STATUS_CHANGE} partners at once`),
    action: z.enum(Object.keys(PARTNER_STATUS_ACTIONS) as [PartnerStatusAction, ...PartnerStatusAction[]]),
    rejection_note: editableFields.rejection_note.optional(),
    suspension_reason: editableFields.suspension_reason.optional(),
  })
  .refine((c) => c.rejection_note === undefined || c.action === 'reject', {
    path: ['rejection_note'],
    message: 'goes with the reject action only',
  })
  .refine((c) => c.suspension_reason === undefined || c.action === 'suspend', {
    path: ['suspension_reason'],
    message: 'goes with the suspend action only',
  });
export type PartnerStatusChangeInput = z.input<typeof PartnerStatusChange>;

const expandParam = multiValue(['group', 'program']).meta({
  description:
    'One or more of: group (id, name, description, created_at, public_key, default), program (id, status, name, product_name, subdomain, type, currency_code, created_at; in the list also cookie_duration, payout_methods, payout_term, url_params)',
});
const includeParam = multiValue(['stats']).meta({
  description: 'stats: adds `stats` {total_clicks, total_customers, total_revenue, total_commission}',
});

export const PartnerListQuery = listQuery({
  program_id: idField,
  group_id: idField.optional(),
  email: z
    .string()
    .max(254)
    .optional()
    .meta({ description: 'Exact address, compared case-insensitively; also finds partners still onboarding' }),
  status: z.enum(PARTNER_STATUSES).optional(),
  search: z
    .string()
    .min(1)
    .max(254)
    .optional()
    .meta({ description: 'Part of the name or e-mail address (case-insensitive; % and _ match literally)' }),
  expand: expandParam.optional(),
  include: includeParam.optional(),
});
export const PartnerRetrieveQuery = z.strictObject({ expand: expandParam.optional(), include: includeParam.optional() });

/** The operations' descriptions in the OpenAPI document. */
const E_MAILS =
  'E-mails: the welcome e-mail (`send_welcome_email`) and those of the three switches `first_customer_email_active`, `new_customer_email_active` and `payout_paid_email_active` (see each field) are queued in the same SQL transaction as the change that causes them, so a refused or rolled-back change sends nothing. Each is plain text with a simple HTML alternative, naming the program and the amounts. The outbox sends them after the commit through `SMTP_URL` (or writes each as an `.eml` file to `SVC_OUTBOX_DIR` without SMTP) and retries a failed send with backoff, up to 8 attempts. (The partner portal sends its own sign-up answer and sign-in links whatever the switches.)';

export const partnerDocs = {
  create: `Required: \`program_id\`, \`first_name\`, \`last_name\`, \`email\`; every other field has a default (see each field). A partner whose e-mail (compared case-insensitively) already exists in the program answers 409 with \`error: "Partner with this email already exists"\` and the existing partner in \`data\`, decided by a unique index, so simultaneous requests cannot create two. ${E_MAILS}`,
  list: 'Partners who have not completed onboarding (`completed_onboarding: false`) are hidden, except from an `email` lookup (exact, case-insensitive). `expand[]=program` here includes cookie_duration, payout_methods, payout_term and url_params. `include[]=stats` adds total_clicks, total_customers (not leads), total_revenue (net of refunds) and total_commission (not rejected or refunded, net of refund entries); deleted records count in none of them.',
  retrieve:
    '`expand[]=group|program` adds the expanded objects (see the parameter); `include[]=stats` adds total_clicks, total_customers (not leads), total_revenue (net of refunds) and total_commission (not rejected or refunded, net of refund entries).',
  update:
    'Any field of the create body except `program_id` and `send_welcome_email`. Status transitions are free (the spec shows none). An e-mail another partner of the program has (compared case-insensitively) → 409 with that partner in `data`. Changing payout_method without payout_details clears the details of the old method.',
  delete:
    'Soft delete: the partner is hidden from the API and its e-mail is free again; its links are deleted (their values free again) and stop resolving; its transactions and commissions remain.',
} as const;

export const PartnerStats = z
  .object({
    total_clicks: z.number().int().meta({ description: 'Clicks recorded for the partner' }),
    total_customers: z
      .number()
      .int()
      .meta({ description: 'Customers attributed to the partner that are not leads (deleted ones excluded)' }),
    total_revenue: z
      .number()
      .int()
      .meta({ description: 'Cents: the amounts of the partner’s transactions, net of refunds (deleted transactions excluded)' }),
    total_commission: z.number().int().meta({
      description: 'Cents of commission not rejected, refunded or deleted, refund entries included, so net of refunds',
    }),
  })
  .meta({ id: 'PartnerStats' });
export type PartnerStatsObject = z.output<typeof PartnerStats>;

export const Partner = z
  .object({
    id: z.string(),
    status: z.enum(PARTNER_STATUSES),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    company_name: z.string().nullable(),
    program_id: z.string(),
    organization_id: z.string(),
    group_id: z.string(),
    payout_method: payoutMethod,
    payout_details: z.record(z.string(), z.string()),
    country_code: z.string().nullable(),
    completed_onboarding: z.boolean(),
    rejection_note: z.string().nullable(),
    internal_note: z.string().nullable(),
    suspension_reason: z.string().nullable(),
    first_customer_email_active: z.boolean(),
    new_customer_email_active: z.boolean(),
    payout_paid_email_active: z.boolean(),
    created_at: isoString,
    updated_at: isoString,
    group: ExpandedGroup.optional(),
    program: z.union([ExpandedProgramWithTerms, ExpandedProgram]).optional(),
    stats: PartnerStats.optional(),
  })
  .meta({ id: 'Partner' });
export type PartnerObject = z.output<typeof Partner>;

/** The partner as expanded on customers, links and commissions. */
export const ExpandedPartner = Partner.pick({
  id: true,
  first_name: true,
  last_name: true,
  email: true,
  company_name: true,
  status: true,
  created_at: true,
}).meta({ id: 'ExpandedPartner' });

export const PartnerExistsResponse = z
  .object({ success: z.literal(false), error: z.literal('Partner with this email already exists'), data: Partner })
  .meta({ id: 'PartnerExists' });
