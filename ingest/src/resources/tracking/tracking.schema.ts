import { z } from 'zod';
import { AD_CLICK_IDS } from '../../../../script/src/ad-click-ids.js';
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
  .meta({
    description:
      'Domain for the cookies the response sets in same-site mode (the script’s probed domain), used when it is the page’s host or a parent of it; one that is not a valid cookie domain still records the click, with cookies for the host only',
  });

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

/**
 * The names (never the values) of the ad click parameters the landing URL carried, for the
 * paid-ad traffic rule (ingest/docs/risk.md), kept in the list's order. A name svc does not know
 * is dropped, so a newer script is never refused.
 */
const adClickIds = z
  .array(z.string().max(32))
  .max(16)
  .transform((names) => AD_CLICK_IDS.filter((known) => names.includes(known)))
  .optional()
  .meta({ description: `Names of the ad click parameters in the landing URL (${AD_CLICK_IDS.join(', ')}); never their values` });

export const TrackClick = z
  .strictObject({
    key: publicKey,
    param: z.string().min(1).max(64).meta({ description: 'The tracking parameter found in the URL, e.g. ref' }),
    value: z.string().min(1).max(256).meta({ description: 'Its value, e.g. alice; an unknown one → 404 `Link not found`' }),
    page: reportedUrl('The landing page (the script sends it without its query string, except the tracking parameter)'),
    referrer: reportedUrl('The referrer’s origin and path'),
    click_id: clickHint,
    ads: adClickIds,
    cookie_domain: cookieDomain,
    v: scriptVersion,
  })
  .meta({ id: 'TrackClick' });
export type TrackClickInput = z.output<typeof TrackClick>;

export const TrackSignup = z
  .strictObject({
    key: publicKey,
    click_id: idField.meta({ description: 'The visitor’s click, of this key’s program' }),
    identifier: z.string().trim().min(1).max(255).meta({
      description: 'An e-mail or your user id, unique per customer in the program; an e-mail address also becomes the customer’s email',
    }),
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
    customer_id: z.string().nullable().meta({
      description:
        'The customer made from this click by a signup, only when the visitor named the click by their own cookie (`click_id`); null otherwise',
    }),
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
const SCRIPT_ENDPOINT =
  "Called by svc.js from browsers. Authenticated by `key`, the program's public key, instead of a secret key (a wrong one → 401 `authentication_error`). Accepts JSON sent as `text/plain` (so browsers send no CORS preflight) as well as `application/json`, answers any origin (`Access-Control-Allow-Origin: *`, preflights answered), and is limited per client address (`SVC_TRACK_RATE_LIMIT` per second; 429 with `Retry-After`). Behind a proxy, forward `X-Forwarded-For` and set `SVC_TRUST_PROXY`, or every visitor shares the proxy's address (and the repeat-click memory). `v` is the script's version.";

/** The OpenAPI descriptions of the script's operations. */
export const trackingDocs = {
  click: `${SCRIPT_ENDPOINT}

\`data\` is what \`window.svc_data\` and the \`svc_data\` cookie hold, \`max_age\` the seconds left until the referral expires (click time + \`cookie_duration\` days). An unknown value → 404 \`{"success":false,"error":"Link not found"}\`. A \`page\` or \`referrer\` that is not an http(s) URL of at most 2,048 characters (an app referrer such as \`android-app://…\`) is dropped rather than failing the click. \`click_id\` is a hint from the visitor's cookie and never fails a click: a value that is not a click id, or an unknown or expired one, is ignored and the click is recorded as new.

- The same visitor on the same link within an hour gets the same click, not a new row: the visitor is known by the \`click_id\` of their cookie, or else by client address and User-Agent (hashed, kept in the shared state for the hour). Since people behind one network with the same browser share those, such a repeat reuses a click only while nobody has signed up on it, and answers \`customer_id: null\`; only a visitor who names the click by their own cookie gets its \`customer_id\`.
- Attribution follows the program's \`attribution_model\`: \`last_click\` (default), the new click; \`first_click\`, a \`click_id\` of the program that has not expired is kept and returned (the new click is still recorded, so the other partner's click count is right).
- Bots (by User-Agent, with isbot) get \`data: null\` and nothing is recorded (\`SVC_BOT_FILTER=off\` turns this off).
- Called same-origin (\`Sec-Fetch-Site: same-origin\`: the API proxied under the merchant's site), the response also sets the \`svc_data\` and \`svc_ref\` cookies (\`Path=/\`, \`SameSite=Lax\`, \`Secure\` on https, \`Max-Age\`, and \`Domain=cookie_domain\` when that is the page's host or a parent of it) and says \`cookie: true\`; the script then leaves the cookies alone. Browsers send \`Sec-Fetch-Site\` only to https origins (and localhost), so on a plain-http site the script writes the cookies itself.`,
  signup: `${SCRIPT_ENDPOINT}

The click (of this key's program) becomes a customer with status \`lead\`, attributed to the click's partner, with \`identifier\` as given (and \`email\` too when it is an e-mail address); the program's signup flows run, as for \`POST /v1/customers\`. A taken identifier → 409 \`{"success":false,"error":{"message":"Customer already exists","type":"conflict_error"}}\`, without the existing customer (browsers must not learn who signed up).`,
} as const;
