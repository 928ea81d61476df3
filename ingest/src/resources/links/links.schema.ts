import { z } from 'zod';
import { idField, isoString } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedPartner } from '../partners/partners.schema.js';
import { ExpandedProgram } from '../programs/programs.schema.js';

/** Link values travel in URLs: unreserved characters only, so they never need encoding. */
export const linkValue = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{1,64}$/, 'must be 1–64 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"')
  .meta({ example: 'alice' });
const linkParam = z.string().min(1).max(32).meta({ description: "One of the program's url_params", example: 'ref' });

export const LinkCreate = z.strictObject({ param: linkParam, value: linkValue, partner_id: idField }).meta({ id: 'LinkCreate' });
export const LinkUpdate = z.strictObject({ param: linkParam.optional(), value: linkValue.optional() }).meta({ id: 'LinkUpdate' });

const expandParam = multiValue(['partner', 'program']);
export const LinkListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
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
    "`param` must be one of the program's url_params; (param, value) is unique in the program, the value compared case-insensitively (409 otherwise).",
  retrieve: 'As the spec says, `data` is an array holding the link.',
  update: 'The old (param, value) stops resolving at once, on every process.',
  delete: 'The link stops resolving at once; clicks already recorded keep their link_id.',
} as const;
