import { z } from 'zod';
import { countryCode, idField, isoString, urlField } from '../../http/fields.js';

export const DEVICES = ['desktop', 'mobile', 'tablet'] as const;

export const ClickCreate = z
  .strictObject({
    partner_id: idField.optional().meta({ description: 'Method 1: the partner who generated the click' }),
    link_id: idField.optional().meta({ description: 'Method 1, optional: a link of that partner (another partner’s → 400)' }),
    param: z.string().min(1).max(32).optional().meta({ description: 'Method 2: the tracking parameter name, e.g. ref' }),
    value: z.string().min(1).max(200).optional().meta({ description: 'Method 2: the tracking parameter value, e.g. alice' }),
    program_id: idField.optional().meta({
      description:
        "Method 1: must be the partner's program. Method 2: the program to look in; without it every program of the organization is searched, and a value that several programs have → 400 asking for program_id",
    }),
    country: countryCode.optional().meta({
      description:
        'ISO 3166-1 alpha-2 country code. Left out: read from the `SVC_COUNTRY_HEADER` request header when configured (codes such as XX or T1 → null), else null',
      example: 'US',
    }),
    device: z.enum(DEVICES).optional().meta({ description: 'Taken from the User-Agent when not given' }),
    page: urlField.optional().meta({ description: 'URL where the click occurred: http(s), up to 2,048 characters' }),
    referrer: urlField.optional().meta({ description: 'http(s) URL, up to 2,048 characters' }),
  })
  .meta({ id: 'ClickCreate' });
export type ClickCreateInput = z.output<typeof ClickCreate>;

export const Click = z
  .object({
    id: z.string(),
    partner_id: z.string(),
    link_id: z.string().nullable(),
    country: z.string().nullable(),
    state: z.string().nullable().meta({ description: 'Always null: svc does no IP geolocation' }),
    device: z.enum(DEVICES).nullable(),
    page: z.string().nullable(),
    browser: z.string().nullable().meta({ description: 'Read from the User-Agent (bowser); null when unknown' }),
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
    'Method 1: `partner_id` (and optionally `link_id`, a link of that partner, and `program_id`, which must be the partner’s). Method 2: `param` + `value` (and optionally `program_id`; without it the link is looked up across the organization’s programs, and a value found in several → 400). Mixing both methods → 400. An unknown param/value answers 404 `{"success":false,"error":"Link not found"}`. `browser` and, unless given, `device` come from the User-Agent; `country`, unless given, from `SVC_COUNTRY_HEADER` when configured; `state` is null. Answers 201 `data:[click]` with every field of the spec’s Click. A click sent through the API is recorded as sent: no bot filtering or deduplication (those apply to the script’s `POST /v1/track/click`).',
} as const;
