import { z } from 'zod';
import { idField, isoString, MAX_CENTS, shortText } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

export const FLOW_TRIGGERS = ['payment', 'signup'] as const;
export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

/** Condition subjects and the kind of value each holds (ingest/docs/commissions.md#commission-flows). */
export const NUMBER_SUBJECTS = [
  'transaction.amount',
  'customer.transaction_count',
  'customer.days_since_lead',
  'partner.total_customers',
] as const;
export const TEXT_SUBJECTS = [
  'transaction.billing_type',
  'transaction.interval',
  'transaction.product_id',
  'transaction.product_name',
  'transaction.source',
  'transaction.currency',
  'partner.country_code',
] as const;
export const SUBJECTS = [...NUMBER_SUBJECTS, ...TEXT_SUBJECTS] as const;
export type Subject = (typeof SUBJECTS)[number];
export const CONDITION_OPS = ['eq', 'neq', 'in', 'gte', 'lte'] as const;

const numberSubjects: ReadonlySet<string> = new Set(NUMBER_SUBJECTS);
export const isNumberSubject = (s: string) => numberSubjects.has(s);

const conditionValue = z.union([
  z.number(),
  z.string().max(255),
  z
    .array(z.union([z.number(), z.string().max(255)]))
    .min(1)
    .max(100),
]);

export const Condition = z
  .strictObject({ subject: z.enum(SUBJECTS), op: z.enum(CONDITION_OPS), value: conditionValue })
  .superRefine((c, ctx) => {
    const wantsNumber = isNumberSubject(c.subject);
    const kind = wantsNumber ? 'number' : 'string';
    if (!wantsNumber && (c.op === 'gte' || c.op === 'lte')) {
      ctx.addIssue({ code: 'custom', path: ['op'], message: `${c.subject} is text: use eq, neq or in` });
      return;
    }
    const values = c.op === 'in' ? c.value : [c.value];
    if ((c.op === 'in') !== Array.isArray(c.value)) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: c.op === 'in' ? 'must be an array for op "in"' : 'must be a single value unless op is "in"',
      });
    } else if (!(values as unknown[]).every((v) => typeof v === kind)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `${c.subject} compares ${kind}s` });
    }
  })
  .meta({
    id: 'FlowCondition',
    description:
      "All conditions of a flow must hold. Number subjects: `transaction.amount` (cents), `customer.transaction_count` (this payment included), `customer.days_since_lead` (whole days from the customer's `lead_at` to the payment), `partner.total_customers`. Text subjects: `transaction.billing_type`, `transaction.interval`, `transaction.product_id`, `transaction.product_name`, `transaction.source`, `transaction.currency`, `partner.country_code`. Ops: `eq`, `neq`, `in` (value an array), `gte` and `lte` (numbers only). A missing value (no interval, no country) matches only `neq`. First payment only: `customer.transaction_count eq 1`; recurring for 12 months: `customer.days_since_lead lte 365`.",
  });
export type ConditionDef = z.output<typeof Condition>;

// JSON numbers print back as written (12.5 → "12.5"), so the shortest form tells the decimals.
const hasTwoDecimals = (v: number) => /^\d+(\.\d{1,2})?$/.test(String(v));
const percentValue = z.number().min(0).max(100).refine(hasTwoDecimals, 'must have at most two decimals');
const fixedValue = z.number().int('must be an integer number of cents').min(0).max(MAX_CENTS);

const percentageRate = {
  type: z.literal('percentage'),
  value: percentValue.meta({ description: 'Percent of the transaction amount, 0–100 with at most two decimals' }),
};
const fixedRate = { type: z.literal('fixed'), value: fixedValue.meta({ description: 'Cents' }) };

const ProductRate = z.discriminatedUnion('type', [
  z.strictObject({ product_id: z.string().trim().min(1).max(255), ...percentageRate }),
  z.strictObject({ product_id: z.string().trim().min(1).max(255), ...fixedRate }),
]);
const productRates = z
  .array(ProductRate)
  .max(100)
  .refine((rates) => new Set(rates.map((r) => r.product_id)).size === rates.length, 'each product_id may appear once')
  .optional()
  .meta({ description: 'Rates that replace the base rate for transactions of these product_ids (each product_id once)' });

export const Reward = z
  .discriminatedUnion('type', [
    z.strictObject({ ...percentageRate, product_rates: productRates }),
    z.strictObject({ ...fixedRate, product_rates: productRates }),
  ])
  .meta({
    id: 'FlowReward',
    description:
      'A percentage of the transaction amount (rounded half up to the cent) or a fixed amount in cents, never more than the payment it is earned on (for a bounty that does not depend on the payment, use a signup flow). A reward that comes to 0 cents creates no commission.',
  });
export type RewardDef = z.output<typeof Reward>;

export const Approval = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('immediate') }),
    z.strictObject({ type: z.literal('scheduled'), delay_days: z.number().int().min(0).max(3650) }),
    z.strictObject({ type: z.literal('manual') }),
  ])
  .meta({
    id: 'FlowApproval',
    description:
      'immediate: approved at once; scheduled: pending, with `scheduled_approval_date` = the payment (or signup) time + delay_days (0–3650), approved then by a job every process runs at start and every `SVC_APPROVAL_INTERVAL_SECONDS` (each commission exactly once); manual: pending until you update it. Default on create: scheduled, 30 days.',
  });
export type ApprovalDef = z.output<typeof Approval>;

export const DEFAULT_APPROVAL: ApprovalDef = { type: 'scheduled', delay_days: 30 };

const flowFields = {
  name: shortText(200),
  group_id: idField.nullable().meta({
    description: 'Only partners of this group; null (the default) for every group. A flow of a group later deleted matches no one.',
  }),
  trigger: z.enum(FLOW_TRIGGERS).meta({
    description:
      'payment (the default): every transaction, renewals included; signup: a customer created (needs a fixed reward and only partner.* conditions, 400 otherwise)',
  }),
  conditions: z.array(Condition).max(20).meta({ description: 'Up to 20; all must hold. Default: none (every payment or signup)' }),
  reward: Reward,
  approval: Approval,
  active: z.boolean().meta({ description: 'Default true; an inactive flow creates no commissions' }),
};

export const FlowCreate = z
  .strictObject({ program_id: idField, ...flowFields })
  .partial()
  .required({ program_id: true, name: true, reward: true })
  .meta({ id: 'FlowCreate' });
export type FlowCreateInput = z.output<typeof FlowCreate>;

export const FlowUpdate = z.strictObject(flowFields).partial().meta({ id: 'FlowUpdate' });
export type FlowUpdateInput = z.output<typeof FlowUpdate>;

export const FlowListQuery = listQuery({
  program_id: idField,
  group_id: idField.optional(),
  trigger: z.enum(FLOW_TRIGGERS).optional(),
  active: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: 'true or false' }),
});
export type FlowListInput = z.output<typeof FlowListQuery>;

export const Flow = z
  .object({
    id: z.string(),
    name: z.string(),
    trigger: z.enum(FLOW_TRIGGERS),
    conditions: z.array(Condition),
    reward: Reward,
    approval: Approval,
    active: z.boolean(),
    default: z.boolean().meta({
      description: 'The flow every program starts with: 20 % of every payment, approved 30 days after the payment',
    }),
    group_id: z.string().nullable(),
    program_id: z.string(),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'Flow' });
export type FlowObject = z.output<typeof Flow>;

/** The OpenAPI descriptions of the flow operations. */
export const flowDocs = {
  create:
    "Beyond the spec. A flow turns a payment (every transaction, renewals included) or a signup into a commission for the referring partner, when all its conditions hold. `group_id` limits it to one group. Approval defaults to scheduled after 30 days. A signup flow needs a fixed reward and only partner.* conditions (400 otherwise). Each matching flow creates at most one commission per transaction (a unique index on the transaction and the flow). Only partners whose status is `active` earn: a suspended, pending or rejected partner's customers still have their transactions recorded, without commission.",
  list: 'Beyond the spec. The flows of the program named by `program_id` (required), filtered by `group_id`, `trigger` and `active`.',
  retrieve: 'Beyond the spec.',
  update:
    'Beyond the spec. Any field but the program. Applies to payments and signups from now on; commissions already created keep their amounts. A change that would break the signup rules (fixed reward, partner.* conditions) → 400.',
  delete: 'Beyond the spec. Soft delete: the flow stops creating commissions; the commissions it created remain and keep their flow_id.',
} as const;
