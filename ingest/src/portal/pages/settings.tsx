import type { Router } from 'express';
import type { PartnerRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { Field, FormRefusal, SelectField } from '../../pages/fields.js';
import { type FieldLabels, orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { portalPayoutMethods, updatePortalSettings } from '../../resources/partner-access/portal-settings.js';
import type { PortalContext, PortalContextOf } from '../context.js';
import { PortalCsrf, PortalLayout } from '../layout.js';
import { COUNTRY_OPTIONS, CountryField, DETAIL_FIELDS, type DetailField, NameFields, payoutLabel } from '../partner-fields.js';

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

/**
 * The method whose details the form shows: the one chosen (what was typed, or the saved one) when
 * the partner may choose it, else the saved one.
 */
function shownMethod(ctx: PortalContext, values: FormValues): string {
  return portalPayoutMethods(ctx.program, ctx.partner).includes(values.payout_method) ? values.payout_method : ctx.partner.payout_method;
}

/** What the form's fields are called, by the API parameter each sets: a refusal names one, and is shown beside it. */
function labelsOf(method: string): FieldLabels {
  const details = (DETAIL_FIELDS[method] ?? []).map((f) => [`payout_details.${f.name}`, f.label] as const);
  return {
    first_name: 'First name',
    last_name: 'Last name',
    country_code: 'Country',
    payout_method: 'Payout method',
    payout_details: `${payoutLabel(method)} details`,
    ...Object.fromEntries(details),
  };
}

export function registerSettingsPages(router: Router, { db }: AppDeps, contextOf: PortalContextOf): void {
  router.get('/settings', (_req, res) => {
    const ctx = contextOf(res, 'settings');
    sendPage(res, <SettingsPage ctx={ctx} values={valuesOf(ctx.partner)} />);
  });

  router.post('/settings', async (req, res) => {
    const ctx = contextOf(res, 'settings');
    const { fields, values } = readForm((req.body ?? {}) as Record<string, unknown>);
    await orRefused(
      async () => {
        const saved = await updatePortalSettings(db, ctx.program, ctx.partner, fields);
        const changed = saved.payout_method !== ctx.partner.payout_method && saved.payout_method !== 'none';
        res.redirect(303, `${ctx.base}/settings?notice=${changed ? 'payout-method-changed' : 'settings-saved'}`);
      },
      labelsOf(shownMethod(ctx, values)),
      (refusal) => sendPage(res, <SettingsPage ctx={ctx} values={values} refusal={refusal} />, refusal.status),
    );
  });
}

function SettingsPage({ ctx, values, refusal = null }: { ctx: PortalContext; values: FormValues; refusal?: Refusal | null }) {
  const { program, partner } = ctx;
  const offered = new Set([...(program.payout_methods as string[]), 'none']);
  const methods = portalPayoutMethods(program, partner).map(
    (m) => [m, offered.has(m) ? payoutLabel(m) : `${payoutLabel(m)} (no longer offered)`] as const,
  );
  const method = shownMethod(ctx, values);
  // The detail fields of the method shown, with what was typed for it, else what is saved for it.
  const details =
    values.details_for === method
      ? values.details
      : method === partner.payout_method
        ? (partner.payout_details as Record<string, string>)
        : {};
  return (
    <PortalLayout ctx={ctx} title="Settings">
      <h1>Settings</h1>
      <p class="muted">
        You are signed in as {partner.email}. To use another e-mail address, write to the {program.name} team.
      </p>
      <FormRefusal refusal={refusal} fields={Object.keys(labelsOf(method))} />
      <form method="post" action={`${ctx.base}/settings`} class="stack settings-form flow-form">
        <PortalCsrf ctx={ctx} />
        <fieldset>
          <legend>About you</legend>
          <div class="stack">
            <NameFields first={values.first_name} last={values.last_name} refusal={refusal} />
            <CountryField value={values.country_code} refusal={refusal} />
          </div>
        </fieldset>

        <fieldset>
          <legend>How you are paid</legend>
          <div class="stack">
            <SelectField
              name="payout_method"
              label="Payout method"
              options={methods}
              value={method}
              hint="Changing it? Choose the new method and save: the form then asks for the new method's details."
              refusal={refusal}
            />
            <input type="hidden" name="details_for" value={method} />
            {method === 'none' ? (
              <p class="hint">Payouts leave out partners without a payout method: choose one to be paid.</p>
            ) : (
              <>
                <h2 class="details-heading">{`${payoutLabel(method)} details`}</h2>
                {DETAIL_FIELDS[method]?.map((f) => (
                  <DetailInput field={f} value={details[f.name] ?? ''} refusal={refusal} />
                ))}
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

/** A field of the payout details: named as the API's parameter (`payout_details.iban`), so that its refusal is shown beside it. */
function DetailInput({ field, value, refusal }: { field: DetailField; value: string; refusal: Refusal | null }) {
  const common = { id: `payout-${field.name}`, name: `payout_details.${field.name}`, label: field.label, hint: field.hint, refusal };
  return field.country ? (
    <SelectField {...common} options={COUNTRY_OPTIONS} value={value.toUpperCase()} />
  ) : (
    <Field
      {...common}
      type={field.email ? 'email' : 'text'}
      maxlength={field.maxlength}
      autocomplete={field.autocomplete ?? 'off'}
      value={value}
    />
  );
}
