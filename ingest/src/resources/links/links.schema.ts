import { z } from 'zod';
import { idField, isoString } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedPartner } from '../partners/partners.schema.js';
import { ExpandedProgram } from '../programs/programs.schema.js';

/** Link values travel in URLs: unreserved characters only, so they never need encoding. */
export const linkValue = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{1,64}$/, 'must be 1–64 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"')
  .meta({
    description:
      '1–64 URL-safe characters (A-Z a-z 0-9 . _ ~ -), so a link never needs encoding. Unique with its param in the program, compared case-insensitively; it keeps the case it was given.',
    example: 'alice',
  });
const linkParam = z.string().min(1).max(32).meta({ description: "One of the program's url_params (400 otherwise)", example: 'ref' });

export const LinkCreate = z.strictObject({ param: linkParam, value: linkValue, partner_id: idField }).meta({ id: 'LinkCreate' });
export const LinkUpdate = z.strictObject({ param: linkParam.optional(), value: linkValue.optional() }).meta({ id: 'LinkUpdate' });

const expandParam = multiValue(['partner', 'program']).meta({
  description:
    'One or more of: partner (id, first_name, last_name, email, company_name, status, created_at), program (id, status, name, product_name, subdomain, type, currency_code, created_at)',
});
export const LinkListQuery = listQuery({
  program_id: idField,
  partner_id: idField
    .optional()
    .meta({ description: "Only this partner's links; a partner of another organization matches nothing (an empty list, not a 404)" }),
  param: z.string().max(32).optional(),
  value: z.string().max(200).optional().meta({ description: 'Exact value, compared case-insensitively' }),
  expand: expandParam.optional(),
});
export type LinkListInput = z.output<typeof LinkListQuery>;
export const LinkRetrieveQuery = z.strictObject({ expand: expandParam.optional() });

export const Link = z
  .object({
    id: z.string(),
    param: z.string(),
    value: z.string(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
    partner: ExpandedPartner.optional(),
    program: ExpandedProgram.optional(),
  })
  .meta({ id: 'Link' });
export type LinkObject = z.output<typeof Link>;

/** The OpenAPI descriptions of the link operations. */
export const linkDocs = {
  create:
    "`param` must be one of the program's url_params (400 otherwise); `value` is 1–64 URL-safe characters. (param, value) is unique in the program, the value compared case-insensitively (409 `conflict_error` otherwise); the value keeps the case it was given. A link resolves while its partner exists, whatever the partner's status (a suspended or rejected partner's clicks are still recorded; deleting the partner stops them).",
  list: 'The links of the program named by `program_id` (required; another organization’s program → 404), filtered by `partner_id`, `param` and `value` (exact, compared case-insensitively).',
  retrieve: 'As the spec says, `data` is an array holding the link.',
  update: 'The same rules as on create. The old (param, value) stops resolving at once, on every process.',
  delete:
    'Soft delete: the link stops resolving at once, on every process, and its value is free again; clicks already recorded keep their link_id.',
} as const;
