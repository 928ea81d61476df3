import { z } from 'zod';
import {
  centsField,
  currencyCode,
  idField,
  isoString,
  optionalText,
  PAYOUT_METHODS,
  payoutMethod,
  shortText,
  urlField,
} from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

export const PROGRAM_STATUSES = ['active', 'inactive'] as const;
export const PROGRAM_TYPES = ['public', 'private'] as const;
export const ATTRIBUTION_MODELS = ['last_click', 'first_click'] as const;

export const PROGRAM_DEFAULTS = {
  status: 'active',
  type: 'public',
  currency_code: 'USD',
  cookie_duration: 30,
  url_params: ['ref', 'via'],
  payout_term: '30',
  payout_methods: ['paypal', 'wise', 'bank_transfer'],
  attribution_model: 'last_click',
  minimum_payout: 0,
  auto_approve_partners: false,
} as const;

const urlParam = z.string().regex(/^[a-z0-9_-]{1,32}$/, 'must be 1–32 characters of a-z, 0-9, _ or -');
const uniqueArray = <T extends z.ZodType>(item: T, max: number) =>
  z
    .array(item)
    .min(1)
    .max(max)
    .refine((a) => new Set(a).size === a.length, 'must not repeat a value');

const programFields = {
  name: shortText(200).meta({ description: 'Required on create; 1–200 characters' }),
  product_name: shortText(200).meta({ description: 'What partners promote; default on create: the name' }),
  subdomain: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label: a-z, 0-9 and -, at most 63 characters')
    .meta({
      description:
        'A DNS label, unique across the service: the partner portal is at /p/{subdomain} (ingest/docs/partner-portal.md). Default on create: made from the name (`My Program` → `my-program`, `my-program-2` when taken). One given that another program has → 409.',
    }),
  type: z.enum(PROGRAM_TYPES).meta({ description: 'public (default): anyone may sign up in the portal; private: invitation only' }),
  status: z.enum(PROGRAM_STATUSES).meta({ description: 'Default on create: active' }),
  currency_code: currencyCode.meta({ description: 'ISO 4217 currency code; default on create: USD', example: 'USD' }),
  cookie_duration: z.number().int().min(1).max(3650).meta({ description: 'Days the referral cookie lasts, 1–3650; default on create: 30' }),
  url_params: uniqueArray(urlParam, 10).meta({
    description:
      'URL parameters that carry a partner link value: 1–10 distinct names of a-z, 0-9, _ and -; default on create: ["ref", "via"]',
  }),
  payout_term: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a number of days, e.g. "30"')
    .meta({ description: 'Days, as a string of digits; default on create: "30"' }),
  payout_methods: uniqueArray(payoutMethod, PAYOUT_METHODS.length).meta({
    description: 'The payout methods partners may choose; default on create: ["paypal", "wise", "bank_transfer"]',
  }),
  attribution_model: z.enum(ATTRIBUTION_MODELS).meta({
    description:
      'last_click (default): a new click takes the referral; first_click: a visitor keeps an unexpired click of the program (the new click is still recorded)',
  }),
  minimum_payout: centsField.meta({
    description:
      'The least a payout may be, in minor units of any currency (5000 is $50.00 but ¥5,000); default on create: 0. A group may set its own (ingest/docs/payouts.md).',
  }),
  auto_approve_partners: z
    .boolean()
    .meta({ description: 'Partners who sign up in the portal start active instead of pending; default on create: false' }),
  partner_terms: optionalText(20_000).meta({
    description: "The program's terms, up to 20,000 characters, shown on the portal's sign-up form, which must accept them; default null",
  }),
  website_url: urlField
    .nullable()
    .meta({ description: "The merchant's site (an http(s) URL): partners' links and the portal's link builder start there; default null" }),
};

export const ProgramCreate = z
  .strictObject({ ...programFields, name: programFields.name })
  .partial()
  .required({ name: true })
  .meta({ id: 'ProgramCreate' });
export const ProgramUpdate = z.strictObject(programFields).partial().meta({ id: 'ProgramUpdate' });
export type ProgramCreateInput = z.output<typeof ProgramCreate>;
export type ProgramUpdateInput = z.output<typeof ProgramUpdate>;

export const ProgramListQuery = listQuery({});

/** The operations' descriptions in the OpenAPI document. */
export const programDocs = {
  list: 'Beyond the spec. The organization’s programs.',
  create:
    'Beyond the spec. Creates the program with its default group ("Default"), its default commission flow (20 % of every payment, approved 30 days after the payment) and a public key (`pk_…`) for the tracking script. Every field but `name` has a default (see each field). A subdomain taken by another program answers 409; one derived from the name gets a number when taken (`acme-2`).',
  retrieve: 'Beyond the spec.',
  update:
    'Beyond the spec. Any field of the create body; `public_key` and `default_group_id` are read-only. A subdomain taken by another program answers 409.',
} as const;

export const Program = z
  .object({
    id: idField,
    status: z.enum(PROGRAM_STATUSES),
    name: z.string(),
    product_name: z.string(),
    subdomain: z.string(),
    type: z.enum(PROGRAM_TYPES),
    currency_code: z.string(),
    cookie_duration: z.number().int(),
    url_params: z.array(z.string()),
    payout_term: z.string(),
    payout_methods: z.array(payoutMethod),
    attribution_model: z.enum(ATTRIBUTION_MODELS),
    minimum_payout: z.number().int(),
    auto_approve_partners: z.boolean(),
    partner_terms: z.string().nullable(),
    website_url: z.string().nullable(),
    public_key: z.string().meta({ description: 'Public key for the tracking script (`data-key` of the script tag), `pk_…`; read-only' }),
    default_group_id: z
      .string()
      .meta({ description: 'The group new partners join unless given another; read-only (change it on the group)' }),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'Program' });
export type ProgramObject = z.output<typeof Program>;

/** The program as expanded on partners, customers, links and commissions. */
export const ExpandedProgram = Program.pick({
  id: true,
  status: true,
  name: true,
  product_name: true,
  subdomain: true,
  type: true,
  currency_code: true,
  created_at: true,
}).meta({ id: 'ExpandedProgram' });

/** The partner list's program expansion adds the program's terms. */
export const ExpandedProgramWithTerms = ExpandedProgram.extend(
  Program.pick({ cookie_duration: true, payout_methods: true, payout_term: true, url_params: true }).shape,
).meta({ id: 'ExpandedProgramWithTerms' });
