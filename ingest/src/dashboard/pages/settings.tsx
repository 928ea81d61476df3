import type { Router } from 'express';
import type { AppDeps } from '../../deps.js';
import { currencyCode } from '../../http/fields.js';
import { formatMoney, toMajorUnits } from '../../money.js';
import { fromFields } from '../../pages/forms.js';
import { sendPage } from '../../pages/render.js';
import { ATTRIBUTION_MODELS, ProgramUpdate } from '../../resources/programs/programs.schema.js';
import { updateProgram } from '../../resources/programs/programs.service.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
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
      [
        'name',
        'cookie_duration',
        'url_params',
        'attribution_model',
        'currency_code',
        'minimum_payout',
        'type',
        'auto_approve_partners',
        'website_url',
        'partner_terms',
      ],
      'body',
      ['website_url', 'partner_terms'],
    );
    await updateProgram(db, store, ctx.user.organization_id, program.id, input);
    res.redirect(303, programPath(program, '/settings?notice=settings-saved'));
  });
}

const ATTRIBUTION_LABELS: Record<(typeof ATTRIBUTION_MODELS)[number], string> = {
  last_click: 'Last click: the latest partner link a visitor followed',
  first_click: 'First click: the first partner link a visitor followed',
};

const CURRENCIES = Intl.supportedValuesOf('currency');

function GeneralSettingsPage({ ctx }: { ctx: ProgramPageContext }) {
  const program = ctx.program;
  const currency = program.currency_code;
  const portalPath = `/p/${program.subdomain}`;
  return (
    <SettingsLayout ctx={ctx} tab="" title="Settings">
      <h2 id="general-title">Program</h2>
      <form method="post" action={programPath(program, '/settings')} class="stack settings-form" aria-labelledby="general-title">
        <Csrf ctx={ctx} />
        <label for="program-name">Name</label>
        <input id="program-name" name="name" value={program.name} required maxlength={200} />
        <label for="cookie-duration">Cookie duration (days)</label>
        <input
          id="cookie-duration"
          name="cookie_duration"
          type="number"
          inputmode="numeric"
          min={1}
          max={3650}
          value={String(program.cookie_duration)}
          required
          aria-describedby="cookie-duration-hint"
        />
        <span id="cookie-duration-hint" class="hint">
          How long after a click a signup still counts for the partner: 1 to 3650 days.
        </span>
        <label for="url-params">URL parameters</label>
        <input id="url-params" name="url_params" value={program.url_params.join(', ')} required aria-describedby="url-params-hint" />
        <span id="url-params-hint" class="hint">
          The parameters partner links use, separated by commas, e.g. <code>ref, via</code> for <code>?ref=alice</code>.
        </span>
        <label for="attribution-model">Attribution</label>
        <select id="attribution-model" name="attribution_model">
          {ATTRIBUTION_MODELS.map((m) => (
            <option value={m} selected={program.attribution_model === m}>
              {ATTRIBUTION_LABELS[m]}
            </option>
          ))}
        </select>
        <label for="currency-code">Currency</label>
        <select id="currency-code" name="currency_code" aria-describedby="currency-hint">
          {CURRENCIES.map((c) => (
            <option value={c} selected={c === currency}>
              {c}
            </option>
          ))}
        </select>
        <span id="currency-hint" class="hint">
          Of new payments reported without one, and of the amounts below.
        </span>
        <label for="minimum-payout">Minimum payout ({currency})</label>
        <input
          id="minimum-payout"
          name="minimum_payout"
          inputmode="decimal"
          value={toMajorUnits(program.minimum_payout, currency)}
          required
          aria-describedby="minimum-payout-hint"
        />
        <span id="minimum-payout-hint" class="hint">
          A partner is paid once they are owed at least this much ({formatMoney(program.minimum_payout, currency)} now); a group may set its
          own.
        </span>
        <fieldset>
          <legend>Partner portal</legend>
          <p class="hint">
            Partners join, sign in and follow their earnings at{' '}
            <a href={portalPath} id="portal-url">
              {ctx.publicUrl}
              {portalPath}
            </a>{' '}
            <button type="button" class="copy" data-copy={`${ctx.publicUrl}${portalPath}`}>
              Copy
            </button>
          </p>
          <label for="program-type">Who can join</label>
          <select id="program-type" name="type">
            <option value="public" selected={program.type === 'public'}>
              Anyone, through the portal's sign-up page
            </option>
            <option value="private" selected={program.type === 'private'}>
              Only partners you add (invitation only)
            </option>
          </select>
          <label class="check">
            <input type="checkbox" name="auto_approve_partners" checked={program.auto_approve_partners} /> Approve partners who sign up at
            once (otherwise they wait as pending for you)
          </label>
          <label for="website-url">Your site</label>
          <input
            id="website-url"
            name="website_url"
            type="url"
            value={program.website_url ?? ''}
            placeholder="https://example.com"
            aria-describedby="website-url-hint"
          />
          <span id="website-url-hint" class="hint">
            Partners' links start here, and their link builder takes any page of it.
          </span>
          <label for="partner-terms">Terms partners accept when they join</label>
          <textarea id="partner-terms" name="partner_terms" rows={6} maxlength={20000} aria-describedby="partner-terms-hint">
            {program.partner_terms ?? ''}
          </textarea>
          <span id="partner-terms-hint" class="hint">
            Plain text; blank lines separate paragraphs. Left empty, the sign-up form shows no terms.
          </span>
        </fieldset>
        <button type="submit" class="primary">
          Save settings
        </button>
      </form>
      <h2>Tracking</h2>
      <p class="muted">
        Public key <code>{program.public_key}</code> · the script tag is on the Integrations page.
      </p>
    </SettingsLayout>
  );
}
