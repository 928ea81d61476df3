import { z } from 'zod';
import { idField, urlField } from '../../http/fields.js';

/** The program's public key, as the script tag's data-key holds it; a missing or wrong one is a 401, like a wrong secret key. */
const publicKey = z
  .preprocess((v) => (typeof v === 'string' ? v : undefined), z.string().max(200).optional())
  .meta({ description: "The program's public key (pk_…)" });

const cookieDomain = z
  .string()
  .max(253)
  // Both cases spelled out: the OpenAPI pattern is the regex's source, without its flags.
  .regex(/^[a-zA-Z0-9.-]+$/)
  .nullable()
  .optional()
  .meta({ description: 'Domain for the cookies the response sets in same-site mode (the script’s probed domain)' });

/** Which build of svc.js sent the request (its package version); recorded nowhere yet, accepted so that a newer script is never refused. */
const scriptVersion = z.string().max(32).optional().meta({ description: 'The svc.js version that sent the request', example: '0.1.0' });

/**
 * The page and referrer the browser reports: context, not something to fail a click over. A
 * string that is not an http(s) URL of at most 2048 characters (an app referrer such as
 * android-app://com.google.android.gm/, a huge URL) is dropped; another type is still a 400.
 */
const reportedUrl = (description: string) =>
  z
    .string()
    .transform((value) => (urlField.safeParse(value).success ? value : undefined))
    .optional()
    .meta({ description: `${description}; dropped unless an http(s) URL of at most 2048 characters` });

/**
 * The click id the script read from the visitor's svc_data cookie: a hint, never a reason to
 * refuse a new click. A cookie can be damaged or written by something else (a number, an
 * object, an overlong string): such a value is ignored, as an unknown or expired id already is.
 */
const clickHint = z
  .unknown()
  .transform((value) => {
    const id = idField.safeParse(value);
    return id.success ? id.data : undefined;
  })
  .optional()
  .meta({ description: 'The click in the visitor’s svc_data cookie, if any; a value that is not a click id is ignored' });

export const TrackClick = z
  .strictObject({
    key: publicKey,
    param: z.string().min(1).max(64),
    value: z.string().min(1).max(256),
    page: reportedUrl('The landing page (the script sends it without its query string, except the tracking parameter)'),
    referrer: reportedUrl('The referrer’s origin and path'),
    click_id: clickHint,
    cookie_domain: cookieDomain,
    v: scriptVersion,
  })
  .meta({ id: 'TrackClick' });
export type TrackClickInput = z.output<typeof TrackClick>;

export const TrackSignup = z
  .strictObject({
    key: publicKey,
    click_id: idField,
    identifier: z.string().trim().min(1).max(255).meta({ description: 'An e-mail or your user id, unique per customer' }),
    cookie_domain: cookieDomain,
    v: scriptVersion,
  })
  .meta({ id: 'TrackSignup' });
export type TrackSignupInput = z.output<typeof TrackSignup>;

/** What `window.svc_data` and the svc_data cookie hold. */
export const SvcData = z
  .object({
    click_id: z.string(),
    cookie_duration: z.number().int().meta({ description: 'Days' }),
    partner_id: z.string(),
    program_id: z.string(),
    customer_id: z.string().nullable(),
  })
  .meta({ id: 'SvcData' });
export type SvcDataObject = z.output<typeof SvcData>;

const cookieFields = {
  max_age: z
    .number()
    .int()
    .meta({ description: 'Seconds until the referral expires (the click time plus cookie_duration days): the cookies’ Max-Age' }),
  cookie: z.boolean().meta({ description: 'True when this response set the cookies itself (same-site mode)' }),
};

export const TrackClickResponse = z
  .object({ success: z.literal(true), data: SvcData.nullable().meta({ description: 'null when the visitor is a bot' }), ...cookieFields })
  .partial({ max_age: true, cookie: true })
  .meta({ id: 'TrackClickResponse' });

export const SignupResult = z
  .object({
    click_id: z.string(),
    customer_id: z.string(),
    customer_identifier: z.string(),
    partner_id: z.string(),
    program_id: z.string(),
    message: z.string(),
  })
  .meta({ id: 'SignupResult' });
export type SignupResultObject = z.output<typeof SignupResult>;

export const TrackSignupResponse = z
  .object({ success: z.literal(true), data: SignupResult, ...cookieFields })
  .meta({ id: 'TrackSignupResponse' });

/** The OpenAPI descriptions of the script's operations. */
export const trackingDocs = {
  click:
    "Authenticated by `key`, the program's public key. Accepts JSON sent as `text/plain`. A repeat by the same visitor on the same link within an hour returns the same click. With `attribution_model: first_click` a visitor whose `click_id` is still within the cookie duration keeps it (the new click is still recorded). Bots (by User-Agent) get `data: null` and nothing is recorded. When called same-origin (the merchant proxies the API), the response also sets the `svc_data` and `svc_ref` cookies.",
  signup:
    'Creates a customer (status lead) attributed to the click’s partner, with the given identifier (also its e-mail when it is one). A taken identifier → 409 `Customer already exists`.',
} as const;
