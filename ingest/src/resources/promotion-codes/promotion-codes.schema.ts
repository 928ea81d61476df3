import { z } from 'zod';
import { idField, isoString } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedPartner } from '../partners/partners.schema.js';
import { ExpandedProgram } from '../programs/programs.schema.js';

export const PROMOTION_CODE_TYPES = ['fixed', 'percentage'] as const;

export const promotionCodeString = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 characters of A-Z, a-z, 0-9, "_" or "-"')
  .meta({ description: '1–64 characters of A-Z a-z 0-9 _ -', example: 'ALICE20' });

const value = z.number().int().min(0).max(100_000_000).meta({ description: 'Cents for a fixed discount; 0–100 for a percentage' });

/** A percentage is at most 100; cents have only the general cap. */
function checkValue(input: { type?: string; value?: number }, ctx: z.RefinementCtx): void {
  if (input.type === 'percentage' && input.value !== undefined && input.value > 100) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be 0–100 for a percentage code' });
  }
}

export const PromotionCodeCreate = z
  .strictObject({
    program_id: idField,
    code: promotionCodeString.meta({
      description: '1–64 characters of A-Z a-z 0-9 _ -, unique in the program compared case-insensitively (409)',
      example: 'ALICE20',
    }),
    type: z.enum(PROMOTION_CODE_TYPES).meta({ description: 'fixed: value in cents; percentage: value 0–100' }),
    value,
    partner_id: idField.nullable().optional().meta({
      description: 'Owner: a partner (while active, the code attributes customers to them); not together with group_id (400)',
    }),
    group_id: idField.nullable().optional().meta({ description: 'Owner: a group; with neither owner the code is program-wide' }),
    active: z.boolean().optional().meta({ description: 'Default true; an inactive code is never applied' }),
  })
  .superRefine(checkValue)
  .refine((c) => !(c.partner_id && c.group_id), { message: 'give partner_id or group_id, not both', path: ['group_id'] })
  .meta({ id: 'PromotionCodeCreate' });

export const PromotionCodeUpdate = z
  .strictObject({
    code: promotionCodeString.optional(),
    type: z.enum(PROMOTION_CODE_TYPES).optional(),
    value: value.optional(),
    active: z.boolean().optional(),
  })
  .superRefine(checkValue)
  .meta({ id: 'PromotionCodeUpdate' });

const expandParam = multiValue(['partner', 'program']).meta({
  description:
    'One or more of: partner (id, first_name, last_name, email, company_name, status, created_at), program (id, status, name, product_name, subdomain, type, currency_code, created_at)',
});
export const PromotionCodeListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
  expand: expandParam.optional(),
});
export type PromotionCodeListInput = z.output<typeof PromotionCodeListQuery>;
export const PromotionCodeRetrieveQuery = z.strictObject({ expand: expandParam.optional() });

export const PromotionCode = z
  .object({
    id: z.string(),
    code: z.string(),
    type: z.enum(PROMOTION_CODE_TYPES),
    value: z.number().int(),
    entity_type: z
      .enum(['partner', 'group', 'program'])
      .meta({ description: 'Who owns the code: a partner, a group, or (with neither) the whole program' }),
    partner_id: z.string().nullable(),
    group_id: z.string().nullable(),
    active: z.boolean(),
    program_id: z.string(),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
    partner: ExpandedPartner.optional(),
    program: ExpandedProgram.optional(),
  })
  .meta({ id: 'PromotionCode' });
export type PromotionCodeObject = z.output<typeof PromotionCode>;

/** The OpenAPI descriptions of the promotion code operations. */
export const promotionCodeDocs = {
  create:
    'Beyond the spec. Owned by a partner (`partner_id`), a group (`group_id`) or, with neither, the whole program (`entity_type` says which); both → 400. `code` is unique in the program, compared case-insensitively (409). A customer created with the code (`promotion_code` on `POST /v1/customers`, or a Stripe checkout) gets it applied when it is active and the referring partner’s, their group’s or program-wide; an active partner-owned code also attributes a customer to its partner when nothing else does.',
  list: 'Beyond the spec. The codes of the program named by `program_id` (required), filtered by `partner_id`.',
  retrieve: 'Beyond the spec. `expand[]=partner|program` as on the list.',
  update: 'Beyond the spec. `code`, `type`, `value` and `active`; the owner cannot change (create a new code for another owner).',
  delete: 'Beyond the spec. Soft delete: customers who used it keep their promotion_code_id.',
} as const;
