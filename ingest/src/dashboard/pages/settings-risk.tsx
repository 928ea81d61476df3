import type { Router } from 'express';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../http/errors.js';
import { Field, FormRefusal, TextareaField, type Typed, typedText } from '../../pages/fields.js';
import { fromFields } from '../../pages/forms.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { changeProgramRules, programRules } from '../../resources/risk/risk.service.js';
import { RISK_RULES, type RiskRule, RiskRuleChanges, type RiskRuleSettings } from '../../resources/risk/risk-rules.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf } from '../layout.js';
import { RULE_TITLES, RULE_WORDS } from '../risk-words.js';
import { numberField, SettingsLayout } from '../settings-layout.js';

/**
 * Settings › Risk rules (ingest/docs/dashboard.md#risk): each fraud and risk rule's switch and
 * thresholds (ingest/docs/risk.md#the-rules), read through the API's RiskRuleChanges schema and
 * saved by the service of `PUT /v1/programs/:id/risk-rules`; a refused value comes back beside its
 * field, with what was typed.
 */

export const riskRuleNotices: Record<string, string> = {
  'risk-rules-saved': 'Risk rules saved: they apply to what arrives from now on.',
};

/** The form's fields, by the API parameter each sets (`<rule>.<field>`), as the page names them. */
const LABELS: Record<string, string> = {
  ...Object.fromEntries(RISK_RULES.map((rule) => [`${rule}.enabled`, `Flag ${RULE_TITLES[rule].toLowerCase()}`])),
  'click_flooding.max_clicks_per_hour': 'Clicks per hour from one browser, at most',
  'refund_rate.max_percent': 'Refunds, at most (% of revenue)',
  'refund_rate.min_payments': 'Payments before the rule applies, at least',
  'banned_referral_source.hosts': 'Banned hosts, one per line',
};

/** The hosts typed one per line (blank lines left out; none clears the list). */
const hostLines = (value: unknown): unknown =>
  typeof value === 'string'
    ? value
        .split(/\r?\n/)
        .map((h) => h.trim())
        .filter(Boolean)
    : value;

/** The form as the API's change: every rule's switch (a checkbox sends nothing when unticked) and thresholds. */
function changesOf(body: Record<string, unknown>): RiskRuleChanges {
  const on = (rule: RiskRule) => body[`${rule}.enabled`] === 'on';
  const input: Record<string, Record<string, unknown>> = Object.fromEntries(RISK_RULES.map((rule) => [rule, { enabled: on(rule) }]));
  input.click_flooding.max_clicks_per_hour = numberField(body['click_flooding.max_clicks_per_hour']);
  input.refund_rate.max_percent = numberField(body['refund_rate.max_percent']);
  input.refund_rate.min_payments = numberField(body['refund_rate.min_payments']);
  input.banned_referral_source.hosts = hostLines(body['banned_referral_source.hosts']);
  return fromFields(RiskRuleChanges, input, RISK_RULES, 'body');
}

/**
 * A refusal in the form's words: a host the schema refuses is named by its line ("Line 2,
 * https://coupons.example: …"), since the field holds several.
 */
function hostRefusal(refusal: Refusal, param: string | undefined, typed: Typed): Refusal {
  const line = /^banned_referral_source\.hosts\.(\d+)$/.exec(param ?? '');
  if (!line) return refusal;
  const hosts = hostLines(typed['banned_referral_source.hosts']);
  const host = Array.isArray(hosts) ? hosts[Number(line[1])] : undefined;
  return {
    ...refusal,
    message: `Line ${Number(line[1]) + 1}${host ? ` (“${host}”)` : ''}: enter a host name such as coupons.example, without https:// or a path.`,
  };
}

export function registerRiskRulePages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;
  const path = '/programs/:programId/settings/risk-rules';

  router.get(path, async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    sendPage(res, <RiskRulesPage ctx={ctx} rules={await programRules(db, ctx.user.organization_id, ctx.program.id)} />);
  });

  router.post(path, async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const org = ctx.user.organization_id;
    const body = (req.body ?? {}) as Record<string, unknown>;
    let param: string | undefined;
    await orRefused(
      async () => {
        let changes: RiskRuleChanges;
        try {
          changes = changesOf(body);
        } catch (err) {
          // The parameter refused, to name a host by its line.
          param = err instanceof ApiError ? err.options.param : undefined;
          throw err;
        }
        await changeProgramRules(db, org, ctx.program.id, changes);
        res.redirect(303, programPath(ctx.program, '/settings/risk-rules?notice=risk-rules-saved'));
      },
      LABELS,
      async (refusal) =>
        sendPage(
          res,
          <RiskRulesPage
            ctx={ctx}
            rules={await programRules(db, org, ctx.program.id)}
            refused={{ refusal: hostRefusal(refusal, param, body), typed: body }}
          />,
          refusal.status,
        ),
    );
  });
}

function RiskRulesPage({
  ctx,
  rules,
  refused,
}: {
  ctx: ProgramPageContext;
  rules: RiskRuleSettings;
  refused?: { refusal: Refusal; typed: Typed };
}) {
  const refusal = refused?.refusal;
  /** A field's value: what was typed in a refused form, else the program's. */
  const value = (name: string, saved: unknown) => typedText(refused?.typed, name, saved);
  const on = (rule: RiskRule) => (refused ? refused.typed[`${rule}.enabled`] === 'on' : rules[rule].enabled);
  const numberFields: Partial<Record<RiskRule, { field: string; saved: number; hint: string }[]>> = {
    click_flooding: [
      {
        field: 'max_clicks_per_hour',
        saved: rules.click_flooding.max_clicks_per_hour,
        hint: 'A browser that clicks one partner’s links more often within an hour is flagged (1 to 100,000).',
      },
    ],
    refund_rate: [
      { field: 'max_percent', saved: rules.refund_rate.max_percent, hint: 'Refunded revenue over the last 60 days, 0 to 100.' },
      {
        field: 'min_payments',
        saved: rules.refund_rate.min_payments,
        hint: 'The rule waits until the partner has this many payments in the 60 days.',
      },
    ],
  };
  return (
    <SettingsLayout ctx={ctx} tab="/risk-rules" title="Risk rules">
      <h2 id="risk-rules-title">Risk rules</h2>
      <p class="muted">
        Each rule flags a referral that looks like fraud as a risk event on the <a href={programPath(ctx.program, '/risk')}>Risk page</a>,
        and holds the commissions it concerns until you decide. A change applies to what arrives from now on: events already flagged stay.
      </p>
      <form
        method="post"
        action={programPath(ctx.program, '/settings/risk-rules')}
        class="stack settings-form risk-rules-form"
        aria-labelledby="risk-rules-title"
      >
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refusal} fields={Object.keys(LABELS)} />
        {RISK_RULES.map((rule) => (
          <fieldset class="risk-rule-settings">
            <legend>{RULE_TITLES[rule]}</legend>
            <label class="check">
              <input type="checkbox" name={`${rule}.enabled`} checked={on(rule)} aria-describedby={`${rule}-words`} />{' '}
              {LABELS[`${rule}.enabled`]}
            </label>
            <p class="hint rule-words" id={`${rule}-words`}>
              {RULE_WORDS[rule]}
            </p>
            {(numberFields[rule] ?? []).map(({ field, saved, hint }) => (
              <Field
                name={`${rule}.${field}`}
                label={LABELS[`${rule}.${field}`]}
                inputmode={field === 'max_percent' ? 'decimal' : 'numeric'}
                value={value(`${rule}.${field}`, saved)}
                required
                hint={hint}
                refusal={refusal}
              />
            ))}
            {rule === 'banned_referral_source' ? (
              <TextareaField
                name="banned_referral_source.hosts"
                label={LABELS['banned_referral_source.hosts']}
                rows={4}
                maxlength={60_000}
                placeholder="coupons.example"
                value={value('banned_referral_source.hosts', rules.banned_referral_source.hosts.join('\n'))}
                hint="A host name such as coupons.example, without https:// or a path; its subdomains are banned with it. Up to 200."
                refusal={refusal}
              />
            ) : null}
          </fieldset>
        ))}
        <button type="submit" class="primary">
          Save risk rules
        </button>
      </form>
    </SettingsLayout>
  );
}
