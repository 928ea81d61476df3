import type { Router } from 'express';
import type { PartnerRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../http/errors.js';
import { sendPage } from '../../pages/render.js';
import { portalPayoutMethods, updatePortalSettings } from '../../resources/partner-access/portal-settings.js';
import type { PortalContext, PortalContextOf } from '../context.js';
import { PortalCsrf, PortalLayout } from '../layout.js';
import { CountryOptions, payoutLabel } from '../payout-fields.js';

/**
 * The partner's own settings (ingest/docs/partner-portal.md): name, country, how they are paid and
 * which e-mails they get. Saved through the portal-settings service (the API's rules, and the
 * program's payout methods); nothing else about the partner can change here.
 *
 * Without JavaScript the form shows the details of one payout method, the one it was drawn with
 * (`details_for`): details typed for it are saved only when that is the method sent. Choosing
 * another method and saving changes the method (its details start empty, as in the API) and
 * the page then asks for the new method's details.
 */

export const settingsNotices: Record<string, string> = {
  'settings-saved': 'Settings saved.',
  'payout-method-changed': 'Payout method changed. Fill in its details below and save again so that payouts can reach you.',
};

const SWITCHES = {
  first_customer_email_active: 'When my first customer signs up',
  new_customer_email_active: 'When a new customer signs up',
  payout_paid_email_active: 'When a payout to me is paid',
} as const;
type Switch = keyof typeof SWITCHES;

interface DetailField {
  name: string;
  label: string;
  hint?: string;
  email?: true;
  maxlength: number;
  autocomplete?: string;
  country?: true;
}

const BANK_FIELDS: DetailField[] = [
  { name: 'account_holder_name', label: 'Account holder', maxlength: 200, autocomplete: 'name' },
  { name: 'bank_name', label: 'Bank', maxlength: 200 },
  { name: 'iban', label: 'IBAN', hint: 'Capital letters and digits without spaces, e.g. GB82WEST12345698765432.', maxlength: 34 },
  { name: 'account_number', label: 'Account number', hint: 'Where the bank has no IBAN.', maxlength: 34 },
  { name: 'routing_number', label: 'Routing number', hint: 'US banks: the ABA routing number.', maxlength: 20 },
  { name: 'sort_code', label: 'Sort code', hint: 'UK banks: six digits, no dashes.', maxlength: 6 },
  { name: 'swift_bic', label: 'SWIFT / BIC', hint: '8 or 11 capital letters and digits.', maxlength: 11 },
  { name: 'country_code', label: "Bank's country", maxlength: 2, country: true },
  { name: 'address', label: 'Address of the account holder', maxlength: 500, autocomplete: 'street-address' },
];

/** The fields of each method's payout details, as the API takes them (PAYOUT_DETAILS in partners.schema.ts). */
const DETAIL_FIELDS: Record<string, DetailField[]> = {
  paypal: [{ name: 'email', label: 'PayPal e-mail address', email: true, maxlength: 254, autocomplete: 'email' }],
  wise: [{ name: 'email', label: 'Wise e-mail address', email: true, maxlength: 254, autocomplete: 'email' }],
  crypto: [
    { name: 'wallet_address', label: 'Wallet address', maxlength: 128 },
    { name: 'network', label: 'Network', hint: 'e.g. Ethereum, Solana, Bitcoin.', maxlength: 40 },
    { name: 'currency', label: 'Currency', hint: 'e.g. USDC, BTC.', maxlength: 12 },
  ],
  bank_transfer: BANK_FIELDS,
  wire: BANK_FIELDS,
  none: [],
};

/** What the form shows: the partner's settings, or what they typed. */
interface FormValues {
  first_name: string;
  last_name: string;
  country_code: string;
  payout_method: string;
  /** The method whose detail fields the form showed. */
  details_for: string;
  details: Record<string, string>;
  switches: Record<Switch, boolean>;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

function valuesOf(partner: PartnerRow): FormValues {
  return {
    first_name: partner.first_name,
    last_name: partner.last_name,
    country_code: partner.country_code ?? '',
    payout_method: partner.payout_method,
    details_for: partner.payout_method,
    details: { ...(partner.payout_details as Record<string, string>) },
    switches: {
      first_customer_email_active: partner.first_customer_email_active,
      new_customer_email_active: partner.new_customer_email_active,
      payout_paid_email_active: partner.payout_paid_email_active,
    },
  };
}

/**
 * The form as the service takes it: only the partner's own fields (a status, e-mail or note sent
 * along is not read). An empty country leaves it as it is; a checkbox left out is off; details
 * go with the method they were typed for, their empty fields left out.
 */
function readForm(body: Record<string, unknown>): { fields: Record<string, unknown>; values: FormValues } {
  const method = body.payout_method;
  const detailsFor = text(body.details_for);
  const details: Record<string, unknown> = {};
  for (const field of DETAIL_FIELDS[detailsFor] ?? []) {
    const value = body[`payout_details.${field.name}`];
    const given = typeof value === 'string' ? value.trim() : value;
    if (given !== undefined && given !== '') details[field.name] = given;
  }
  const switches = Object.fromEntries(Object.keys(SWITCHES).map((k) => [k, body[k] === 'on'])) as Record<Switch, boolean>;
  const fields: Record<string, unknown> = {
    first_name: body.first_name,
    last_name: body.last_name,
    ...(body.country_code === '' || body.country_code === undefined ? {} : { country_code: body.country_code }),
    payout_method: method,
    ...(detailsFor !== '' && detailsFor === method ? { payout_details: details } : {}),
    ...switches,
  };
  const values: FormValues = {
    first_name: text(body.first_name),
    last_name: text(body.last_name),
    country_code: text(body.country_code),
    payout_method: text(method),
    details_for: detailsFor,
    details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, text(v)])),
    switches,
  };
  return { fields, values };
}

const FIELD_LABELS: Record<string, string> = {
  first_name: 'First name',
  last_name: 'Last name',
  country_code: 'Country',
  payout_method: 'Payout method',
};

/** The service's message with the field named as the form names it: "IBAN: must be an IBAN without spaces". */
function errorText(error: { message: string; param?: string }, method: string): string {
  const detail = error.param?.startsWith('payout_details.') ? error.param.slice('payout_details.'.length) : undefined;
  const label = detail ? DETAIL_FIELDS[method]?.find((f) => f.name === detail)?.label : error.param && FIELD_LABELS[error.param];
  const problem = /^Invalid [^:]+: (.+)$/.exec(error.message)?.[1];
  return label && problem ? `${label}: ${problem}` : error.message;
}

export function registerSettingsPages(router: Router, { db }: AppDeps, contextOf: PortalContextOf): void {
  router.get('/settings', (_req, res) => {
    const ctx = contextOf(res, 'settings');
    sendPage(res, <SettingsPage ctx={ctx} values={valuesOf(ctx.partner)} />);
  });

  router.post('/settings', async (req, res) => {
    const ctx = contextOf(res, 'settings');
    const { fields, values } = readForm((req.body ?? {}) as Record<string, unknown>);
    let saved: PartnerRow;
    try {
      saved = await updatePortalSettings(db, ctx.program, ctx.partner, fields);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return sendPage(
        res,
        <SettingsPage ctx={ctx} values={values} error={{ message: err.message, param: err.options.param }} />,
        err.status,
      );
    }
    const changed = saved.payout_method !== ctx.partner.payout_method && saved.payout_method !== 'none';
    res.redirect(303, `${ctx.base}/settings?notice=${changed ? 'payout-method-changed' : 'settings-saved'}`);
  });
}

function SettingsPage({ ctx, values, error }: { ctx: PortalContext; values: FormValues; error?: { message: string; param?: string } }) {
  const { program, partner } = ctx;
  const methods = portalPayoutMethods(program, partner);
  const offered = new Set([...(program.payout_methods as string[]), 'none']);
  // The detail fields of the method chosen, with what was typed for it, else what is saved for it.
  const method = methods.includes(values.payout_method) ? values.payout_method : partner.payout_method;
  const details =
    values.details_for === method
      ? values.details
      : method === partner.payout_method
        ? (partner.payout_details as Record<string, string>)
        : {};
  /** aria attributes of a field: invalid, and described by the error, when the error names it. */
  const invalid = (param: string, hint?: string) => {
    const wrong = error?.param === param;
    const describedBy = [wrong ? 'settings-error' : null, hint ?? null].filter(Boolean).join(' ');
    return { 'aria-invalid': wrong ? ('true' as const) : undefined, 'aria-describedby': describedBy || undefined };
  };
  return (
    <PortalLayout ctx={ctx} title="Settings">
      <h1>Settings</h1>
      <p class="muted">
        You are signed in as {partner.email}. To use another e-mail address, write to the {program.name} team.
      </p>
      {error ? (
        <p class="error" role="alert" id="settings-error">
          {errorText(error, method)}
        </p>
      ) : null}
      <form method="post" action={`${ctx.base}/settings`} class="stack settings-form flow-form">
        <PortalCsrf ctx={ctx} />
        <fieldset>
          <legend>About you</legend>
          <div class="stack">
            <label for="first_name">First name</label>
            <input
              id="first_name"
              name="first_name"
              required
              maxlength={100}
              autocomplete="given-name"
              value={values.first_name}
              {...invalid('first_name')}
            />
            <label for="last_name">Last name</label>
            <input
              id="last_name"
              name="last_name"
              required
              maxlength={100}
              autocomplete="family-name"
              value={values.last_name}
              {...invalid('last_name')}
            />
            <label for="country_code">Country</label>
            <select id="country_code" name="country_code" autocomplete="country" {...invalid('country_code')}>
              <CountryOptions selected={values.country_code.toUpperCase()} />
            </select>
          </div>
        </fieldset>

        <fieldset>
          <legend>How you are paid</legend>
          <div class="stack">
            <label for="payout_method">Payout method</label>
            <select id="payout_method" name="payout_method" {...invalid('payout_method', 'payout-method-hint')}>
              {methods.map((m) => (
                <option value={m} selected={m === method}>
                  {offered.has(m) ? payoutLabel(m) : `${payoutLabel(m)} (no longer offered)`}
                </option>
              ))}
            </select>
            <span id="payout-method-hint" class="hint">
              Changing it? Choose the new method and save: the form then asks for the new method's details.
            </span>
            <input type="hidden" name="details_for" value={method} />
            {method === 'none' ? (
              <p class="hint">Payouts leave out partners without a payout method: choose one to be paid.</p>
            ) : (
              <>
                <h3>{`${payoutLabel(method)} details`}</h3>
                {DETAIL_FIELDS[method]?.map((f) => {
                  const id = `payout-${f.name}`;
                  const param = `payout_details.${f.name}`;
                  const hintId = f.hint ? `${id}-hint` : undefined;
                  return (
                    <>
                      <label for={id}>{f.label}</label>
                      {f.country ? (
                        <select id={id} name={param} {...invalid(param, hintId)}>
                          <CountryOptions selected={(details[f.name] ?? '').toUpperCase()} />
                        </select>
                      ) : (
                        <DetailInput id={id} name={param} field={f} value={details[f.name] ?? ''} aria={invalid(param, hintId)} />
                      )}
                      {f.hint ? (
                        <span id={hintId} class="hint">
                          {f.hint}
                        </span>
                      ) : null}
                    </>
                  );
                })}
              </>
            )}
          </div>
        </fieldset>

        <fieldset>
          <legend>E-mail me</legend>
          {(Object.keys(SWITCHES) as Switch[]).map((name) => (
            <label class="check">
              <input type="checkbox" name={name} value="on" checked={values.switches[name]} /> {SWITCHES[name]}
            </label>
          ))}
        </fieldset>

        <button type="submit" class="primary">
          Save settings
        </button>
      </form>
    </PortalLayout>
  );
}

function DetailInput(props: {
  id: string;
  name: string;
  field: DetailField;
  value: string;
  aria: { 'aria-invalid': 'true' | undefined; 'aria-describedby': string | undefined };
}) {
  const { id, name, field, value, aria } = props;
  const autocomplete = field.autocomplete ?? 'off';
  return field.email ? (
    <input id={id} name={name} type="email" maxlength={field.maxlength} autocomplete={autocomplete} value={value} {...aria} />
  ) : (
    <input id={id} name={name} maxlength={field.maxlength} autocomplete={autocomplete} value={value} {...aria} />
  );
}
