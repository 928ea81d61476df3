import type { Router } from 'express';
import type { AppDeps } from '../../deps.js';
import { currencyCode } from '../../http/fields.js';
import { formatMoney, toMajorUnits } from '../../money.js';
import { Field, FormRefusal, SelectField, TextareaField, type Typed, typedText } from '../../pages/fields.js';
import { fromFields } from '../../pages/forms.js';
import { RecordId } from '../../pages/record-id.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { ATTRIBUTION_MODELS, ProgramUpdate } from '../../resources/programs/programs.schema.js';
import { updateProgram } from '../../resources/programs/programs.service.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { integrationsPath } from '../integrations-layout.js';
import { Csrf } from '../layout.js';
import { amountField, listField, numberField, SettingsLayout } from '../settings-layout.js';

/**
 * A program's settings (ingest/docs/dashboard.md#what-it-does; the fields of /v1/programs,
 * /v1/flows, /v1/groups and /v1/promotion-codes): every form is read through the API's own schema
 * and saved by the same service as the /v1 route, so the dashboard has no rule of its own. This
 * module has the program's terms and the sub-navigation; flows, groups, promotion codes and the
 * portal's branding have a module each (settings-*.tsx).
 */

export const settingsNotices: Record<string, string> = {
  'settings-saved': 'Program settings saved.',
};

/** The form's fields, by the API parameter each sets, as the page names them. */
const LABELS = {
  website_url: 'Website address',
  name: 'Name',
  cookie_duration: 'Cookie duration (days)',
  url_params: 'URL parameters',
  attribution_model: 'Attribution',
  currency_code: 'Currency',
  minimum_payout: 'Minimum payout',
  type: 'Who can join',
  auto_approve_partners: 'Approve partners who sign up at once',
  partner_terms: 'Terms partners accept when they join',
};

export function registerSettingsPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, store } = deps;

  router.get('/programs/:programId/settings', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    sendPage(res, <GeneralSettingsPage ctx={ctx} />);
  });

  router.post('/programs/:programId/settings', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const body = (req.body ?? {}) as Record<string, unknown>;
    await orRefused(
      async () => {
        // The minimum is typed in the major unit of the currency the form saves (a new one, when valid).
        const currency = currencyCode.safeParse(body.currency_code);
        const minimum = amountField(body.minimum_payout, currency.success ? currency.data : program.currency_code, 'minimum_payout');
        const input = fromFields(
          ProgramUpdate,
          {
            name: body.name,
            cookie_duration: numberField(body.cookie_duration),
            url_params: listField(body.url_params),
            attribution_model: body.attribution_model,
            currency_code: body.currency_code,
            minimum_payout: minimum,
            type: body.type,
            // A checkbox sends nothing when unticked, and this form always shows it.
            auto_approve_partners: body.auto_approve_partners === 'on',
            website_url: body.website_url,
            partner_terms: body.partner_terms,
          },
          Object.keys(LABELS),
          'body',
          ['website_url', 'partner_terms'],
        );
        await updateProgram(db, store, ctx.user.organization_id, program.id, input);
        res.redirect(303, programPath(program, '/settings?notice=settings-saved'));
      },
      LABELS,
      (refusal) => sendPage(res, <GeneralSettingsPage ctx={ctx} refused={{ refusal, typed: body }} />, refusal.status),
    );
  });
}

const ATTRIBUTION_LABELS: Record<(typeof ATTRIBUTION_MODELS)[number], string> = {
  last_click: 'Last click: the latest partner link a visitor followed',
  first_click: 'First click: the first partner link a visitor followed',
};

const CURRENCIES = Intl.supportedValuesOf('currency');

function GeneralSettingsPage({ ctx, refused }: { ctx: ProgramPageContext; refused?: { refusal: Refusal; typed: Typed } }) {
  const program = ctx.program;
  const currency = program.currency_code;
  const portalPath = `/p/${program.subdomain}`;
  const refusal = refused?.refusal;
  /** A field's value: what was typed in a refused form, else the program's. */
  const value = (name: string, saved: unknown) => typedText(refused?.typed, name, saved);
  const website = value('website_url', program.website_url ?? '');
  return (
    <SettingsLayout ctx={ctx} tab="" title="Settings">
      <h2 id="general-title">Program</h2>
      <form method="post" action={programPath(program, '/settings')} class="stack settings-form" aria-labelledby="general-title">
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refusal} fields={Object.keys(LABELS)} />
        <fieldset class={`website${program.website_url ? '' : ' missing'}`}>
          <legend>Your website</legend>
          <Field
            name="website_url"
            label={LABELS.website_url}
            type="url"
            value={website}
            placeholder="https://example.com"
            maxlength={2048}
            hint={
              program.website_url ? (
                "Partners' links start here: any page of it with their own parameter, e.g. ?ref=emma. Their link builder takes any page of it."
              ) : (
                <>
                  <strong>Not set yet: partners have no link to share.</strong> A partner's link is a page of your site with their own
                  parameter (e.g. ?ref=emma); without your site's address, svc cannot give them one.
                </>
              )
            }
            refusal={refusal}
          />
        </fieldset>
        <Field name="name" label={LABELS.name} value={value('name', program.name)} required maxlength={200} refusal={refusal} />
        <Field
          name="cookie_duration"
          label={LABELS.cookie_duration}
          inputmode="numeric"
          value={value('cookie_duration', program.cookie_duration)}
          required
          hint="How long after a click a signup still counts for the partner: 1 to 3650 days."
          refusal={refusal}
        />
        <Field
          name="url_params"
          label={LABELS.url_params}
          value={value('url_params', program.url_params.join(', '))}
          required
          hint={
            <>
              The parameters partner links use, separated by commas, e.g. <code>ref, via</code> for <code>?ref=alice</code>.
            </>
          }
          refusal={refusal}
        />
        <SelectField
          name="attribution_model"
          label={LABELS.attribution_model}
          value={value('attribution_model', program.attribution_model)}
          options={ATTRIBUTION_MODELS.map((m) => [m, ATTRIBUTION_LABELS[m]] as const)}
          refusal={refusal}
        />
        <SelectField
          name="currency_code"
          label={LABELS.currency_code}
          value={value('currency_code', currency)}
          options={CURRENCIES.map((c) => [c, c] as const)}
          hint="Of new payments reported without one, and of the amounts below."
          refusal={refusal}
        />
        <Field
          name="minimum_payout"
          label={`${LABELS.minimum_payout} (${currency})`}
          inputmode="decimal"
          value={value('minimum_payout', toMajorUnits(program.minimum_payout, currency))}
          required
          hint={`A partner is paid once they are owed at least this much (${formatMoney(program.minimum_payout, currency)} now); a group may set its own.`}
          refusal={refusal}
        />
        <fieldset>
          <legend>Partner portal</legend>
          <p class="hint">
            Partners join, sign in and follow their earnings at{' '}
            <a href={portalPath} id="portal-url">
              {ctx.publicUrl}
              {portalPath}
            </a>{' '}
            <button type="button" class="copy" data-copy={`${ctx.publicUrl}${portalPath}`} aria-label="Copy the portal's address">
              Copy
            </button>
          </p>
          <SelectField
            name="type"
            label={LABELS.type}
            value={value('type', program.type)}
            options={[
              ['public', "Anyone, through the portal's sign-up page"],
              ['private', 'Only partners you add (invitation only)'],
            ]}
            refusal={refusal}
          />
          <label class="check">
            <input
              type="checkbox"
              name="auto_approve_partners"
              checked={refused ? refused.typed.auto_approve_partners === 'on' : program.auto_approve_partners}
            />{' '}
            Approve partners who sign up at once (otherwise they wait as pending for you)
          </label>
          <TextareaField
            name="partner_terms"
            label={LABELS.partner_terms}
            rows={6}
            maxlength={20000}
            value={value('partner_terms', program.partner_terms ?? '')}
            hint="Plain text; blank lines separate paragraphs. Left empty, the sign-up form shows no terms."
            refusal={refusal}
          />
        </fieldset>
        <button type="submit" class="primary">
          Save settings
        </button>
      </form>
      <h2>Tracking</h2>
      <p class="muted">
        Public key <RecordId id={program.public_key} copyLabel="Copy the public key" /> · the script tag is on{' '}
        {ctx.user.role === 'owner' ? (
          <a href={integrationsPath('/script-tag')}>Integrations › Script tag</a>
        ) : (
          'the Integrations page (owners)'
        )}
        .
      </p>
    </SettingsLayout>
  );
}
