import type { Request, Response, Router } from 'express';
import type { FlowRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import type { Page } from '../../http/list.js';
import { formatMoney, toMajorUnits } from '../../money.js';
import { StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal, SelectField } from '../../pages/fields.js';
import { day } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { orRefused, type Refusal, refusalOf } from '../../pages/refusal.js';
import type { Children } from '../../pages/render.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { type FlowPreview, FlowPreviewInput, previewPayment } from '../../resources/flows/flow-preview.js';
import {
  type ApprovalDef,
  CONDITION_OPS,
  type ConditionDef,
  FLOW_TRIGGERS,
  FlowCreate,
  type FlowObject,
  FlowUpdate,
  isNumberSubject,
  type RewardDef,
  SUBJECTS,
} from '../../resources/flows/flows.schema.js';
import { toFlow } from '../../resources/flows/flows.serializer.js';
import { createFlow, deleteFlow, listFlows, requireFlow, updateFlow } from '../../resources/flows/flows.service.js';
import type { GroupObject } from '../../resources/groups/groups.schema.js';
import { listGroups } from '../../resources/groups/groups.service.js';
import { listPartners } from '../../resources/partners/partners.service.js';
import { BILLING_TYPES, INTERVALS } from '../../resources/transactions/transactions.schema.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf } from '../layout.js';
import { amountField, numberField, SettingsLayout } from '../settings-layout.js';

export const flowNotices: Record<string, string> = {
  'flow-created': 'Commission flow created. It applies to payments from now on.',
  'flow-saved': 'Commission flow saved. Commissions already created keep their amounts.',
  'flow-deleted': 'Commission flow deleted. The commissions it created remain.',
};

/** Empty rows a flow form offers beyond the ones a flow has. */
const SPARE_CONDITIONS = 2;
const SPARE_RATES = 1;
/** Form rows read at most (the schema caps conditions at 20 and product rates at 100, and says so past them). */
const MAX_ROWS = 120;
const MAX_CONDITIONS = 20;
const MAX_RATES = 100;

const FLOW_FIELDS = ['name', 'trigger', 'group_id', 'conditions', 'reward', 'approval', 'active'] as const;

export function registerFlowPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, store } = deps;

  const groupsOf = async (ctx: ProgramPageContext) =>
    (await listGroups(db, ctx.user.organization_id, { program_id: ctx.program.id, limit: 100, order: 'asc' })).rows;

  /** The flow of the program in the URL; another program's or organization's is a 404. */
  async function programFlow(ctx: ProgramPageContext, flowId: string): Promise<FlowRow> {
    const flow = await requireFlow(db, ctx.user.organization_id, flowId);
    if (flow.program_id !== ctx.program.id) throw notFound('flow', flowId);
    return flow;
  }

  /** The flow form again, after a refusal: what was typed, the message beside its field. */
  async function refusedForm(res: Response, ctx: ProgramPageContext, flow: FlowObject | null, body: unknown, refusal: Refusal) {
    const page = <FlowFormPage ctx={ctx} groups={await groupsOf(ctx)} flow={flow} values={typedFlow(body)} refusal={onFlowForm(refusal)} />;
    sendPage(res, page, refusal.status);
  }

  router.get('/programs/:programId/settings/flows', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const org = ctx.user.organization_id;
    const program = ctx.program;
    const [flows, groups] = await Promise.all([listFlows(db, org, { program_id: program.id, limit: 100, order: 'asc' }), groupsOf(ctx)]);
    let preview: PreviewState | null = null;
    if (typeof req.query.amount === 'string') {
      const query = req.query as Record<string, string>;
      try {
        preview = { query, result: await runPreview(req, ctx) };
      } catch (err) {
        // An id the preview does not find is a fact typed wrong, not a page that is missing.
        const typedWrong = err instanceof ApiError && err.status === 404 ? badRequest(err.message, err.options.param) : err;
        preview = { query, refusal: refusalOf(typedWrong, PREVIEW_LABELS) };
      }
    }
    sendPage(res, <FlowListPage ctx={ctx} flows={flows} groups={groups} preview={preview} />, preview?.refusal?.status ?? 200);
  });

  /** The preview form → the dry run of the payment flows (flows/flow-preview.ts). */
  async function runPreview(req: Request, ctx: ProgramPageContext): Promise<FlowPreview> {
    const program = ctx.program;
    const q = req.query as Record<string, unknown>;
    const amount = amountField(q.amount, program.currency_code, 'amount');
    if (amount === undefined) throw badRequest('Enter the amount of a payment, e.g. 49.00', 'amount');
    let partnerId: string | undefined;
    if (typeof q.partner === 'string' && q.partner.trim() !== '') {
      const email = q.partner.trim();
      const found = await listPartners(db, ctx.user.organization_id, { program_id: program.id, email, limit: 1 });
      if (!found.rows[0]) throw badRequest(`No partner of this program has the e-mail ${email}`, 'partner');
      partnerId = found.rows[0].id;
    }
    const input = fromFields(
      FlowPreviewInput,
      {
        amount,
        partner_id: partnerId,
        group_id: q.group_id,
        product_id: q.product_id,
        billing_type: q.billing_type,
        interval: q.interval,
        payment_number: numberField(q.payment_number),
        days_since_signup: numberField(q.days_since_signup),
      },
      ['amount', 'partner_id', 'group_id', 'product_id', 'billing_type', 'interval', 'payment_number', 'days_since_signup'],
      'query',
    );
    return previewPayment(db, ctx.user.organization_id, program.id, input);
  }

  router.get('/programs/:programId/settings/flows/new', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    sendPage(res, <FlowFormPage ctx={ctx} groups={await groupsOf(ctx)} flow={null} values={flowValues(null, ctx.program.currency_code)} />);
  });

  router.post('/programs/:programId/settings/flows', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    await orRefused(
      async () => {
        const input = fromFields(
          FlowCreate,
          { ...flowInput(typedFlow(req.body), program.currency_code), program_id: program.id },
          ['program_id', ...FLOW_FIELDS],
          'body',
        );
        const flow = await createFlow(db, store, ctx.user.organization_id, input);
        res.redirect(303, programPath(program, `/settings/flows/${flow.id}?notice=flow-created`));
      },
      FLOW_LABELS,
      (refusal) => refusedForm(res, ctx, null, req.body, refusal),
    );
  });

  router.get('/programs/:programId/settings/flows/:flowId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const flow = toFlow(await programFlow(ctx, req.params.flowId));
    sendPage(res, <FlowFormPage ctx={ctx} groups={await groupsOf(ctx)} flow={flow} values={flowValues(flow, ctx.program.currency_code)} />);
  });

  router.post('/programs/:programId/settings/flows/:flowId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const flow = toFlow(await programFlow(ctx, req.params.flowId));
    await orRefused(
      async () => {
        const input = fromFields(FlowUpdate, flowInput(typedFlow(req.body), program.currency_code), FLOW_FIELDS, 'body', ['group_id']);
        await updateFlow(db, store, ctx.user.organization_id, flow.id, input);
        res.redirect(303, programPath(program, `/settings/flows/${flow.id}?notice=flow-saved`));
      },
      FLOW_LABELS,
      (refusal) => refusedForm(res, ctx, flow, req.body, refusal),
    );
  });

  router.post('/programs/:programId/settings/flows/:flowId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const flow = await programFlow(ctx, req.params.flowId);
    await deleteFlow(db, store, ctx.user.organization_id, flow.id);
    res.redirect(303, programPath(ctx.program, '/settings/flows?notice=flow-deleted'));
  });
}

/* The flow form ↔ the API's flow shape. */

/** What the flow form shows, every field as text: a flow's, or what was typed. */
interface FlowValues {
  name: string;
  trigger: string;
  group_id: string;
  active: boolean;
  reward_type: string;
  reward_value: string;
  rates: { product: string; type: string; value: string }[];
  conditions: { subject: string; op: string; value: string }[];
  approval_type: string;
  approval_delay_days: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/**
 * Repeated rows of a form (`cond_subject_0`, `cond_op_0` …), those with a first field filled in.
 * They are shown again in this order, so that the API's `conditions.1` is the form's second row.
 */
function rowsOf(body: Record<string, unknown>, prefix: string, keys: readonly string[]): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  for (let i = 0; i < MAX_ROWS; i++) {
    if (body[`${prefix}_${keys[0]}_${i}`] === undefined) break;
    const row = Object.fromEntries(keys.map((k) => [k, text(body[`${prefix}_${k}_${i}`])]));
    if (row[keys[0]] !== '') rows.push(row);
  }
  return rows;
}

/** The flow form as it was sent. */
function typedFlow(raw: unknown): FlowValues {
  const body = (raw ?? {}) as Record<string, unknown>;
  return {
    name: typeof body.name === 'string' ? body.name : '',
    trigger: text(body.trigger),
    group_id: text(body.group_id),
    active: body.active === 'on',
    reward_type: text(body.reward_type),
    reward_value: text(body.reward_value),
    rates: rowsOf(body, 'rate', ['product', 'type', 'value']) as FlowValues['rates'],
    conditions: rowsOf(body, 'cond', ['subject', 'op', 'value']) as FlowValues['conditions'],
    approval_type: text(body.approval_type),
    approval_delay_days: text(body.approval_delay_days),
  };
}

/** A reward or rate value as the form shows it: a percentage as is, a fixed one in the major unit. */
const rewardValueText = (r: Pick<RewardDef, 'type' | 'value'>, currency: string) =>
  r.type === 'fixed' ? toMajorUnits(r.value, currency) : String(r.value);

/** A flow as the form shows it (a new flow: 20 % of every payment, approved after 30 days). */
function flowValues(flow: FlowObject | null, currency: string): FlowValues {
  const reward = flow?.reward ?? { type: 'percentage' as const, value: 20 };
  const approval: ApprovalDef = flow?.approval ?? { type: 'scheduled', delay_days: 30 };
  return {
    name: flow?.name ?? '',
    trigger: flow?.trigger ?? 'payment',
    group_id: flow?.group_id ?? '',
    active: flow?.active ?? true,
    reward_type: reward.type,
    reward_value: rewardValueText(reward, currency),
    rates: (flow?.reward.product_rates ?? []).map((r) => ({ product: r.product_id, type: r.type, value: rewardValueText(r, currency) })),
    conditions: (flow?.conditions ?? []).map((c) => ({ subject: c.subject, op: c.op, value: conditionValueText(c, currency) })),
    approval_type: approval.type,
    approval_delay_days: String(approval.type === 'scheduled' ? approval.delay_days : 30),
  };
}

/** A reward or rate value: a percentage as a number, a fixed one as an amount in the major unit. */
function rateValue(type: string, value: string, currency: string, field: string): unknown {
  if (type === 'fixed') return amountField(value, currency, field) ?? value;
  return numberField(value);
}

/** A condition's value as typed: amounts in the major unit, counts as numbers, several values for "in" separated by commas. */
function conditionValue(subject: string, op: string, value: string, currency: string, field: string): unknown {
  const one = (v: string) => {
    if (subject === 'transaction.amount') return amountField(v, currency, field) ?? v;
    return isNumberSubject(subject) ? numberField(v) : v;
  };
  if (op === 'in')
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
      .map(one);
  return one(value);
}

/** The JSON the flow form stands for; the schema (FlowCreate / FlowUpdate) then decides. */
function flowInput(v: FlowValues, currency: string): Record<string, unknown> {
  const conditions = v.conditions.map((c, i) => ({
    subject: c.subject,
    op: c.op,
    value: conditionValue(c.subject, c.op, c.value, currency, `conditions.${i}.value`),
  }));
  const rates = v.rates.map((r, i) => ({
    product_id: r.product,
    type: r.type,
    value: rateValue(r.type, r.value, currency, `reward.product_rates.${i}.value`),
  }));
  return {
    name: v.name,
    trigger: v.trigger,
    group_id: v.group_id,
    active: v.active,
    conditions,
    reward: {
      type: v.reward_type,
      value: rateValue(v.reward_type, v.reward_value, currency, 'reward.value'),
      ...(rates.length ? { product_rates: rates } : {}),
    },
    approval:
      v.approval_type === 'scheduled'
        ? { type: v.approval_type, delay_days: numberField(v.approval_delay_days) }
        : { type: v.approval_type },
  };
}

/** The API's parameters the flow form sets, with the words the form labels them with. */
const FLOW_LABELS: Record<string, string> = {
  name: 'Name',
  trigger: 'When',
  group_id: 'Partners',
  'reward.type': 'Reward type',
  'reward.value': 'Reward value',
  'approval.type': 'Approve',
  'approval.delay_days': 'Days',
  ...Object.fromEntries(
    Array.from({ length: MAX_CONDITIONS }, (_, i) => [
      [`conditions.${i}.subject`, `Condition ${i + 1}`],
      [`conditions.${i}.op`, `Comparison ${i + 1}`],
      [`conditions.${i}.value`, `Value ${i + 1}`],
    ]).flat(),
  ),
  ...Object.fromEntries(
    Array.from({ length: MAX_RATES }, (_, i) => [
      [`reward.product_rates.${i}.product_id`, `Product ${i + 1}`],
      [`reward.product_rates.${i}.type`, `Rate type ${i + 1}`],
      [`reward.product_rates.${i}.value`, `Rate ${i + 1}`],
    ]).flat(),
  ),
};

/** The form field an API parameter of FLOW_LABELS is typed in (`conditions.1.value` is `cond_value_1`). */
function flowFormField(param: string): string {
  const row = /^(conditions|reward\.product_rates)\.(\d+)\.(\w+)$/.exec(param);
  if (row) {
    const [, list, i, key] = row;
    return list === 'conditions' ? `cond_${key}_${i}` : `rate_${key === 'product_id' ? 'product' : key}_${i}`;
  }
  return param.replace('.', '_');
}

const onFlowForm = (refusal: Refusal): Refusal => (refusal.field ? { ...refusal, field: flowFormField(refusal.field) } : refusal);

const PREVIEW_LABELS = {
  amount: 'Payment',
  partner: "Partner's e-mail",
  group_id: 'Group',
  payment_number: "Customer's payment number",
  days_since_signup: 'Days since signup',
  product_id: 'Product id',
  billing_type: 'Billing',
  interval: 'Interval',
};

/** What a reward pays, in words. */
export function rewardText(reward: Pick<RewardDef, 'type' | 'value'>, currency: string): string {
  return reward.type === 'percentage' ? `${reward.value}%` : formatMoney(reward.value, currency);
}

const OP_TEXT: Record<(typeof CONDITION_OPS)[number], string> = { eq: 'is', neq: 'is not', in: 'is one of', gte: '≥', lte: '≤' };

const SUBJECT_TEXT: Record<(typeof SUBJECTS)[number], string> = {
  'transaction.amount': 'Payment amount',
  'customer.transaction_count': "Customer's payment number",
  'customer.days_since_lead': 'Days since the customer signed up',
  'partner.total_customers': "Partner's customers",
  'transaction.billing_type': 'Billing type',
  'transaction.interval': 'Billing interval',
  'transaction.product_id': 'Product id',
  'transaction.product_name': 'Product name',
  'transaction.source': 'Payment source',
  'transaction.currency': 'Payment currency',
  'partner.country_code': "Partner's country",
};

/** A condition's value as the form shows it back. */
function conditionValueText(c: ConditionDef, currency: string): string {
  const one = (v: string | number) => (c.subject === 'transaction.amount' && typeof v === 'number' ? toMajorUnits(v, currency) : String(v));
  return Array.isArray(c.value) ? c.value.map(one).join(', ') : one(c.value as string | number);
}

function conditionText(c: ConditionDef, currency: string): string {
  const value =
    c.subject === 'transaction.amount'
      ? (Array.isArray(c.value) ? c.value : [c.value]).map((v) => (typeof v === 'number' ? formatMoney(v, currency) : String(v))).join(', ')
      : conditionValueText(c, currency);
  return `${SUBJECT_TEXT[c.subject]} ${OP_TEXT[c.op]} ${value}`;
}

function approvalText(a: ApprovalDef): string {
  switch (a.type) {
    case 'immediate':
      return 'Approved at once';
    case 'scheduled':
      return `Approved after ${a.delay_days} day${a.delay_days === 1 ? '' : 's'}`;
    case 'manual':
      return 'Approved by hand';
  }
}

interface PreviewState {
  query: Record<string, string>;
  result?: FlowPreview;
  refusal?: Refusal;
}

function FlowListPage({
  ctx,
  flows,
  groups,
  preview,
}: {
  ctx: ProgramPageContext;
  flows: Page<FlowObject>;
  groups: GroupObject[];
  preview: PreviewState | null;
}) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/flows');
  const groupName = (id: string | null) => (id === null ? 'All partners' : (groups.find((g) => g.id === id)?.name ?? 'A deleted group'));
  const flowName = (id: string) => flows.rows.find((f) => f.id === id)?.name ?? 'A deleted flow';
  const activePayment = flows.rows.some((f) => f.active && f.trigger === 'payment');
  const q = preview?.query ?? {};
  const refusal = preview?.refusal;
  return (
    <SettingsLayout ctx={ctx} tab="/flows" title="Commission flows">
      <div class="page-head">
        <h2>Commission flows</h2>
        <a class="button primary" href={`${base}/new`}>
          New flow
        </a>
      </div>
      <p class="muted">
        Each active flow whose conditions hold pays the referring partner once per payment (or signup). Changes apply from now on.
      </p>
      <DataTable
        caption="Commission flows"
        rows={flows.rows}
        empty="No commission flows: partners earn nothing until you add one. Create a flow, for example 20% of every payment, approved after 30 days."
        columns={[
          {
            head: 'Flow',
            cell: (f) => (
              <>
                <a href={`${base}/${f.id}`}>{f.name}</a>
                {f.default ? <span class="sub">the program's first flow</span> : null}
              </>
            ),
          },
          { head: 'When', cell: (f) => (f.trigger === 'payment' ? 'Every payment' : 'Signup') },
          { head: 'Partners', cell: (f) => groupName(f.group_id) },
          {
            head: 'Conditions',
            cell: (f) =>
              f.conditions.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                f.conditions.map((c) => <span class="sub">{conditionText(c, currency)}</span>)
              ),
          },
          {
            head: 'Reward',
            numeric: true,
            cell: (f) => (
              <>
                {rewardText(f.reward, currency)}
                {f.reward.product_rates?.length ? (
                  <span class="sub">
                    +{f.reward.product_rates.length} product rate{f.reward.product_rates.length === 1 ? '' : 's'}
                  </span>
                ) : null}
              </>
            ),
          },
          { head: 'Approval', cell: (f) => approvalText(f.approval) },
          { head: 'Status', cell: (f) => <StatusBadge status={f.active ? 'active' : 'inactive'} /> },
        ]}
      />

      <section aria-labelledby="preview-title" class="preview">
        <h2 id="preview-title">Preview a payment</h2>
        <p class="muted">
          What a payment would pay under the active flows, worked out by the same rules that pay commissions. Nothing is recorded.
        </p>
        <form method="get" action={base} class="row" aria-labelledby="preview-title">
          {/* A preview saves nothing: only a refusal about no field of it is said at the top. */}
          <FormRefusal refusal={refusal?.field ? null : refusal} />
          <Field
            name="amount"
            id="preview-amount"
            label={`${PREVIEW_LABELS.amount} (${currency})`}
            inputmode="decimal"
            required
            value={q.amount ?? '49.00'}
            refusal={refusal}
          />
          <Field
            name="partner"
            id="preview-partner"
            label={PREVIEW_LABELS.partner}
            type="email"
            value={q.partner ?? ''}
            placeholder="optional"
            hint="A partner's group, country and customers count; without one, a new partner of the chosen group."
            refusal={refusal}
          />
          <SelectField
            name="group_id"
            id="preview-group"
            label="or group"
            value={q.group_id ?? ''}
            options={[['', 'Default group'], ...groups.filter((g) => !g.default).map((g) => [g.id, g.name] as const)]}
            refusal={refusal}
          />
          <details class="more-facts" open={refusal?.field !== undefined && !['amount', 'partner', 'group_id'].includes(refusal.field)}>
            <summary class="button">More facts…</summary>
            <div class="row">
              <Field
                name="payment_number"
                id="preview-number"
                label={PREVIEW_LABELS.payment_number}
                inputmode="numeric"
                value={q.payment_number ?? '1'}
                refusal={refusal}
              />
              <Field
                name="days_since_signup"
                id="preview-days"
                label={PREVIEW_LABELS.days_since_signup}
                inputmode="numeric"
                value={q.days_since_signup ?? '0'}
                refusal={refusal}
              />
              <Field
                name="product_id"
                id="preview-product"
                label={PREVIEW_LABELS.product_id}
                value={q.product_id ?? ''}
                placeholder="optional"
                refusal={refusal}
              />
              <SelectField
                name="billing_type"
                id="preview-billing"
                label={PREVIEW_LABELS.billing_type}
                value={q.billing_type ?? 'one_time'}
                options={BILLING_TYPES.map((b) => [b, b === 'one_time' ? 'one-time' : b] as const)}
                refusal={refusal}
              />
              <SelectField
                name="interval"
                id="preview-interval"
                label={PREVIEW_LABELS.interval}
                value={q.interval ?? ''}
                options={[['', 'none'], ...INTERVALS.map((i) => [i, i] as const)]}
                refusal={refusal}
              />
            </div>
          </details>
          <button type="submit" class="primary">
            Preview
          </button>
        </form>
        {preview?.result ? <PreviewResult result={preview.result} flowName={flowName} activePayment={activePayment} /> : null}
      </section>
    </SettingsLayout>
  );
}

function PreviewResult({
  result: r,
  flowName,
  activePayment,
}: {
  result: FlowPreview;
  flowName: (id: string) => string;
  activePayment: boolean;
}) {
  return (
    <div class="preview-result" role="status" aria-live="polite">
      <p>
        <strong>Pays {formatMoney(r.total, r.currency)} in commission</strong>{' '}
        <span class="muted">
          (payment no. {r.facts.payment_number}, {r.facts.days_since_signup} days after signup
          {r.partner ? `, a partner with ${r.facts.partner_customers} customer${r.facts.partner_customers === 1 ? '' : 's'}` : ''})
        </span>
      </p>
      {r.partner && !r.partner.earns ? (
        <p class="muted">This partner is {r.partner.status}: only active partners earn commissions.</p>
      ) : (
        <DataTable
          caption="Commissions this payment would pay"
          rows={r.commissions}
          empty={
            activePayment
              ? 'No active payment flow matches this payment: check the flows’ conditions and groups.'
              : 'No active payment flow: create one above to pay partners on payments.'
          }
          columns={[
            { head: 'Flow', cell: (c) => flowName(c.flow_id) },
            { head: 'Commission', numeric: true, cell: (c) => formatMoney(c.amount, r.currency) },
            {
              head: 'Status',
              cell: (c) => (
                <>
                  <StatusBadge status={c.status} />
                  {c.scheduled_approval_date ? <span class="sub">approved on {day(c.scheduled_approval_date)}</span> : null}
                </>
              ),
            },
          ]}
        />
      )}
    </div>
  );
}

/** A field of a repeated row: its label read by screen readers with the row's number ("Rate 2"). */
const rowLabel = (words: Children, i: number, shown = true) =>
  shown ? (
    <>
      {words}
      <span class="visually-hidden"> {i + 1}</span>
    </>
  ) : (
    <span class="visually-hidden">
      {words} {i + 1}
    </span>
  );

function FlowFormPage({
  ctx,
  groups,
  flow,
  values: v,
  refusal,
}: {
  ctx: ProgramPageContext;
  groups: GroupObject[];
  flow: FlowObject | null;
  values: FlowValues;
  refusal?: Refusal;
}) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/flows');
  const conditions = [...v.conditions, ...Array(SPARE_CONDITIONS).fill({ subject: '', op: 'eq', value: '' })] as FlowValues['conditions'];
  const rates = [...v.rates, ...Array(SPARE_RATES).fill({ product: '', type: 'percentage', value: '' })] as FlowValues['rates'];
  const title = flow ? flow.name : 'New commission flow';
  return (
    <SettingsLayout ctx={ctx} tab="/flows" title={title}>
      <p class="crumbs">
        <a href={base}>Commission flows</a> /
      </p>
      <h2>{title}</h2>
      {flow ? (
        <p class="sub">
          Created {day(flow.created_at)}
          {flow.default ? ' with the program' : ''} · changes apply to payments from now on; commissions already created keep their amounts.
        </p>
      ) : null}
      <form method="post" action={flow ? `${base}/${flow.id}` : base} class="stack flow-form">
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refusal} fields={Object.keys(FLOW_LABELS).map(flowFormField)} />
        <Field
          name="name"
          id="flow-name"
          label="Name"
          value={v.name}
          required
          maxlength={200}
          placeholder="e.g. 30% of the first payment"
          refusal={refusal}
        />
        <SelectField
          name="trigger"
          id="flow-trigger"
          label="When"
          value={v.trigger}
          options={FLOW_TRIGGERS.map((t) => [t, t === 'payment' ? 'Every payment (renewals included)' : 'A customer signs up'] as const)}
          hint="A signup flow pays a fixed amount and can only have partner conditions."
          refusal={refusal}
        />
        <SelectField
          name="group_id"
          id="flow-group"
          label="Partners"
          value={v.group_id}
          options={[['', 'All partners'], ...groups.map((g) => [g.id, `Only the group ${g.name}`] as const)]}
          refusal={refusal}
        />

        <fieldset>
          <legend>Reward</legend>
          <div class="row">
            <SelectField
              name="reward_type"
              id="reward-type"
              label="Reward type"
              value={v.reward_type}
              options={[
                ['percentage', 'Percentage of the payment'],
                ['fixed', `Fixed amount (${currency})`],
              ]}
              refusal={refusal}
            />
            <Field
              name="reward_value"
              id="reward-value"
              label="Reward value"
              inputmode="decimal"
              required
              value={v.reward_value}
              hint="A percentage (0–100, two decimals at most) or an amount such as 5.00; a fixed reward never exceeds the payment."
              refusal={refusal}
            />
          </div>
          <details open={v.rates.length > 0}>
            <summary class="button">Rates for some products…</summary>
            {rates.map((r, i) => (
              <div class="row">
                <Field name={`rate_product_${i}`} label={rowLabel('Product', i)} value={r.product} maxlength={255} refusal={refusal} />
                <SelectField
                  name={`rate_type_${i}`}
                  label={rowLabel('Rate type', i)}
                  value={r.type}
                  options={[
                    ['percentage', '%'],
                    ['fixed', currency],
                  ]}
                  refusal={refusal}
                />
                <Field name={`rate_value_${i}`} label={rowLabel('Rate', i)} inputmode="decimal" value={r.value} refusal={refusal} />
              </div>
            ))}
            <span class="hint">Leave the product id empty to drop a rate. Save to get another empty row.</span>
          </details>
        </fieldset>

        <fieldset>
          <legend>Conditions (all must hold)</legend>
          {conditions.map((c, i) => (
            <div class="row">
              <SelectField
                name={`cond_subject_${i}`}
                label={rowLabel('If', i)}
                value={c.subject}
                options={[['', '—'], ...SUBJECTS.map((s) => [s, SUBJECT_TEXT[s]] as const)]}
                refusal={refusal}
              />
              <SelectField
                name={`cond_op_${i}`}
                label={rowLabel('Comparison', i, false)}
                value={c.op}
                options={CONDITION_OPS.map((op) => [op, OP_TEXT[op]] as const)}
                refusal={refusal}
              />
              <Field name={`cond_value_${i}`} label={rowLabel('Value', i, false)} value={c.value} maxlength={2000} refusal={refusal} />
            </div>
          ))}
          <span class="hint">
            None: every payment. First payment only: "Customer's payment number is 1". For "is one of", separate values with commas; amounts
            in {currency} (e.g. 10.00). Choose — to drop a condition.
          </span>
        </fieldset>

        <fieldset>
          <legend>Approval</legend>
          <div class="row">
            <SelectField
              name="approval_type"
              id="approval-type"
              label="Approve"
              value={v.approval_type}
              options={[
                ['scheduled', 'after a number of days'],
                ['immediate', 'at once'],
                ['manual', 'by hand'],
              ]}
              refusal={refusal}
            />
            <Field
              name="approval_delay_days"
              id="approval-days"
              label="Days (when after a number of days)"
              inputmode="numeric"
              value={v.approval_delay_days}
              refusal={refusal}
            />
          </div>
        </fieldset>

        <label class="check">
          <input type="checkbox" name="active" checked={v.active} /> Active
        </label>
        <button type="submit" class="primary">
          {flow ? 'Save flow' : 'Create flow'}
        </button>
      </form>
      {flow ? (
        <form method="post" action={`${base}/${flow.id}/delete`} class="actions">
          <Csrf ctx={ctx} />
          <button
            type="submit"
            class="danger"
            data-confirm={`Delete the flow “${flow.name}”? It stops paying at once; its commissions remain.`}
          >
            Delete flow
          </button>
        </form>
      ) : null}
    </SettingsLayout>
  );
}
