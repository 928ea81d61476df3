import { z } from 'zod';
import { countryCode, idField, isoString, urlField } from '../../http/fields.js';

export const DEVICES = ['desktop', 'mobile', 'tablet'] as const;

export const ClickCreate = z
  .strictObject({
    partner_id: idField.optional().meta({ description: 'Method 1: the partner who generated the click' }),
    link_id: idField.optional().meta({ description: 'Method 1, optional: a link of that partner' }),
    param: z.string().min(1).max(32).optional().meta({ description: 'Method 2: the tracking parameter name, e.g. ref' }),
    value: z.string().min(1).max(200).optional().meta({ description: 'Method 2: the tracking parameter value, e.g. alice' }),
    program_id: idField
      .optional()
      .meta({ description: 'Method 2: the program to look in; without it every program of the organization is searched' }),
    country: countryCode.optional(),
    device: z.enum(DEVICES).optional().meta({ description: 'Taken from the User-Agent when not given' }),
    page: urlField.optional().meta({ description: 'URL where the click occurred' }),
    referrer: urlField.optional(),
  })
  .meta({ id: 'ClickCreate' });
export type ClickCreateInput = z.output<typeof ClickCreate>;

export const Click = z
  .object({
    id: z.string(),
    partner_id: z.string(),
    link_id: z.string().nullable(),
    country: z.string().nullable(),
    state: z.string().nullable(),
    device: z.enum(DEVICES).nullable(),
    page: z.string().nullable(),
    browser: z.string().nullable(),
    referrer: z.string().nullable(),
    program_id: z.string(),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'Click' });
export type ClickObject = z.output<typeof Click>;

export const LinkNotFoundResponse = z
  .object({ success: z.literal(false), error: z.literal('Link not found') })
  .meta({ id: 'LinkNotFound' });

/** The OpenAPI descriptions of the click operations. */
export const clickDocs = {
  create:
    'Method 1: `partner_id` (and optionally `link_id`, a link of that partner). Method 2: `param` + `value` (and optionally `program_id`; without it the link is looked up across the organization’s programs, and a value found in several → 400). An unknown param/value answers 404 `{"success":false,"error":"Link not found"}`. `browser` and, unless given, `device` come from the User-Agent.',
} as const;
