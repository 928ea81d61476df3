import type { Request, Router } from 'express';
import type { FlowRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import type { Page } from '../../http/list.js';
import { formatMoney, toMajorUnits } from '../../money.js';
import { day } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { sendPage } from '../../pages/render.js';
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
/** Form rows read at most (the schema caps conditions at 20 and product rates at 100). */
const MAX_ROWS = 120;

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

  router.get('/programs/:programId/settings/flows', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const org = ctx.user.organization_id;
    const program = ctx.program;
    const [flows, groups] = await Promise.all([listFlows(db, org, { program_id: program.id, limit: 100, order: 'asc' }), groupsOf(ctx)]);
    let preview: PreviewState | null = null;
    if (typeof req.query.amount === 'string') {
      try {
        preview = { query: req.query as Record<string, string>, result: await runPreview(req, ctx) };
      } catch (err) {
        if (!(err instanceof ApiError) || (err.status !== 400 && err.status !== 404)) throw err;
        preview = { query: req.query as Record<string, string>, error: err.message };
      }
    }
    sendPage(res, <FlowListPage ctx={ctx} flows={flows} groups={groups} preview={preview} />, preview?.error ? 400 : 200);
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
      if (!found.rows[0]) throw notFound('partner', email, 'partner');
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
    sendPage(res, <FlowFormPage ctx={ctx} groups={await groupsOf(ctx)} flow={null} />);
  });

  router.post('/programs/:programId/settings/flows', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const input = fromFields(
      FlowCreate,
      { ...flowFromForm(req.body, program.currency_code), program_id: program.id },
      ['program_id', ...FLOW_FIELDS],
      'body',
    );
    const flow = await createFlow(db, store, ctx.user.organization_id, input);
    res.redirect(303, programPath(program, `/settings/flows/${flow.id}?notice=flow-created`));
  });

  router.get('/programs/:programId/settings/flows/:flowId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const flow = toFlow(await programFlow(ctx, req.params.flowId));
    sendPage(res, <FlowFormPage ctx={ctx} groups={await groupsOf(ctx)} flow={flow} />);
  });

  router.post('/programs/:programId/settings/flows/:flowId', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const flow = await programFlow(ctx, req.params.flowId);
    const input = fromFields(FlowUpdate, flowFromForm(req.body, program.currency_code), FLOW_FIELDS, 'body', ['group_id']);
    await updateFlow(db, store, ctx.user.organization_id, flow.id, input);
    res.redirect(303, programPath(program, `/settings/flows/${flow.id}?notice=flow-saved`));
  });

  router.post('/programs/:programId/settings/flows/:flowId/delete', async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const flow = await programFlow(ctx, req.params.flowId);
    await deleteFlow(db, store, ctx.user.organization_id, flow.id);
    res.redirect(303, programPath(ctx.program, '/settings/flows?notice=flow-deleted'));
  });
}

/* The flow form ↔ the API's flow shape. */

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Repeated rows of a form (`cond_subject_0`, `cond_op_0` …), those with a first field filled in. */
function rowsOf(body: Record<string, unknown>, prefix: string, keys: readonly string[]): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  for (let i = 0; i < MAX_ROWS; i++) {
    if (body[`${prefix}_${keys[0]}_${i}`] === undefined) break;
    const row = Object.fromEntries(keys.map((k) => [k, text(body[`${prefix}_${k}_${i}`])]));
    if (row[keys[0]] !== '') rows.push(row);
  }
  return rows;
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

/** The JSON a flow form stands for; the schema (FlowCreate / FlowUpdate) then decides. */
function flowFromForm(raw: unknown, currency: string): Record<string, unknown> {
  const body = (raw ?? {}) as Record<string, unknown>;
  const conditions = rowsOf(body, 'cond', ['subject', 'op', 'value']).map((c, i) => ({
    subject: c.subject,
    op: c.op,
    value: conditionValue(c.subject, c.op, c.value, currency, `conditions.${i}.value`),
  }));
  const rates = rowsOf(body, 'rate', ['product', 'type', 'value']).map((r, i) => ({
    product_id: r.product,
    type: r.type,
    value: rateValue(r.type, r.value, currency, `reward.product_rates.${i}.value`),
  }));
  const rewardType = text(body.reward_type);
  const approvalType = text(body.approval_type);
  return {
    name: body.name,
    trigger: body.trigger,
    group_id: body.group_id,
    active: body.active === 'on',
    conditions,
    reward: {
      type: rewardType,
      value: rateValue(rewardType, text(body.reward_value), currency, 'reward.value'),
      ...(rates.length ? { product_rates: rates } : {}),
    },
    approval:
      approvalType === 'scheduled'
        ? { type: approvalType, delay_days: numberField(text(body.approval_delay_days)) }
        : { type: approvalType },
  };
}

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
  error?: string;
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
  const flowName = (id: string) => flows.rows.find((f) => f.id === id)?.name ?? id;
  const activePayment = flows.rows.some((f) => f.active && f.trigger === 'payment');
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
      {flows.rows.length === 0 ? (
        <p class="empty">
          No commission flows: partners earn nothing until you add one. Create a flow, for example 20% of every payment, approved after 30
          days.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Flow</th>
                <th scope="col">When</th>
                <th scope="col">Partners</th>
                <th scope="col">Conditions</th>
                <th scope="col" class="num">
                  Reward
                </th>
                <th scope="col">Approval</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {flows.rows.map((f) => (
                <tr>
                  <th scope="row">
                    <a href={`${base}/${f.id}`}>{f.name}</a>
                    {f.default ? <span class="sub">the program's first flow</span> : null}
                  </th>
                  <td>{f.trigger === 'payment' ? 'Every payment' : 'Signup'}</td>
                  <td>{groupName(f.group_id)}</td>
                  <td>
                    {f.conditions.length === 0 ? (
                      <span class="muted">none</span>
                    ) : (
                      f.conditions.map((c) => <span class="sub">{conditionText(c, currency)}</span>)
                    )}
                  </td>
                  <td class="num">
                    {rewardText(f.reward, currency)}
                    {f.reward.product_rates?.length ? (
                      <span class="sub">
                        +{f.reward.product_rates.length} product rate{f.reward.product_rates.length === 1 ? '' : 's'}
                      </span>
                    ) : null}
                  </td>
                  <td>{approvalText(f.approval)}</td>
                  <td>
                    <span class={`badge badge-${f.active ? 'active' : 'inactive'}`}>{f.active ? 'active' : 'inactive'}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <section aria-labelledby="preview-title" class="preview">
        <h2 id="preview-title">Preview a payment</h2>
        <p class="muted">
          What a payment would pay under the active flows, worked out by the same rules that pay commissions. Nothing is recorded.
        </p>
        <form method="get" action={base} class="row" aria-labelledby="preview-title">
          <label for="preview-amount">Payment ({currency})</label>
          <input id="preview-amount" name="amount" inputmode="decimal" required value={preview?.query.amount ?? '49.00'} size={10} />
          <label for="preview-partner">Partner's e-mail</label>
          <input
            id="preview-partner"
            name="partner"
            type="email"
            value={preview?.query.partner ?? ''}
            placeholder="optional"
            aria-describedby="preview-partner-hint"
          />
          <label for="preview-group">or group</label>
          <select id="preview-group" name="group_id">
            <option value="">Default group</option>
            {groups
              .filter((g) => !g.default)
              .map((g) => (
                <option value={g.id} selected={preview?.query.group_id === g.id}>
                  {g.name}
                </option>
              ))}
          </select>
          <details class="more-facts">
            <summary class="button">More facts…</summary>
            <div class="row">
              <label for="preview-number">Customer's payment number</label>
              <input
                id="preview-number"
                name="payment_number"
                type="number"
                min={1}
                value={preview?.query.payment_number ?? '1'}
                size={4}
              />
              <label for="preview-days">Days since signup</label>
              <input
                id="preview-days"
                name="days_since_signup"
                type="number"
                min={0}
                value={preview?.query.days_since_signup ?? '0'}
                size={4}
              />
              <label for="preview-product">Product id</label>
              <input id="preview-product" name="product_id" value={preview?.query.product_id ?? ''} placeholder="optional" />
              <label for="preview-billing">Billing</label>
              <select id="preview-billing" name="billing_type">
                {BILLING_TYPES.map((b) => (
                  <option value={b} selected={preview?.query.billing_type === b}>
                    {b === 'one_time' ? 'one-time' : b}
                  </option>
                ))}
              </select>
              <label for="preview-interval">Interval</label>
              <select id="preview-interval" name="interval">
                <option value="">none</option>
                {INTERVALS.map((i) => (
                  <option value={i} selected={preview?.query.interval === i}>
                    {i}
                  </option>
                ))}
              </select>
            </div>
          </details>
          <button type="submit" class="primary">
            Preview
          </button>
        </form>
        <span id="preview-partner-hint" class="hint">
          A partner's group, country and customers count; without one, a new partner of the chosen group.
        </span>
        {preview ? <PreviewResult preview={preview} flowName={flowName} activePayment={activePayment} /> : null}
      </section>
    </SettingsLayout>
  );
}

function PreviewResult({
  preview,
  flowName,
  activePayment,
}: {
  preview: PreviewState;
  flowName: (id: string) => string;
  activePayment: boolean;
}) {
  if (preview.error || !preview.result) {
    return (
      <p class="error" role="alert">
        {preview.error}
      </p>
    );
  }
  const r = preview.result;
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
      ) : r.commissions.length === 0 ? (
        <p class="muted">
          {activePayment
            ? 'No active payment flow matches this payment: check the flows’ conditions and groups.'
            : 'No active payment flow: create one above to pay partners on payments.'}
        </p>
      ) : (
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Flow</th>
              <th scope="col" class="num">
                Commission
              </th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {r.commissions.map((c) => (
              <tr>
                <th scope="row">{flowName(c.flow_id)}</th>
                <td class="num">{formatMoney(c.amount, r.currency)}</td>
                <td>
                  <span class={`badge badge-${c.status}`}>{c.status}</span>
                  {c.scheduled_approval_date ? <span class="sub">approved on {day(c.scheduled_approval_date)}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function FlowFormPage({ ctx, groups, flow }: { ctx: ProgramPageContext; groups: GroupObject[]; flow: FlowObject | null }) {
  const program = ctx.program;
  const currency = program.currency_code;
  const base = programPath(program, '/settings/flows');
  const conditions: (ConditionDef | null)[] = [...(flow?.conditions ?? []), ...Array(SPARE_CONDITIONS).fill(null)];
  const rates = [...(flow?.reward.product_rates ?? []), ...Array(SPARE_RATES).fill(null)];
  const reward = flow?.reward ?? { type: 'percentage', value: 20 };
  const approval: ApprovalDef = flow?.approval ?? { type: 'scheduled', delay_days: 30 };
  const rewardValue = (r: Pick<RewardDef, 'type' | 'value'>) => (r.type === 'fixed' ? toMajorUnits(r.value, currency) : String(r.value));
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
        <label for="flow-name">Name</label>
        <input id="flow-name" name="name" value={flow?.name ?? ''} required maxlength={200} placeholder="e.g. 30% of the first payment" />

        <label for="flow-trigger">When</label>
        <select id="flow-trigger" name="trigger" aria-describedby="flow-trigger-hint">
          {FLOW_TRIGGERS.map((t) => (
            <option value={t} selected={(flow?.trigger ?? 'payment') === t}>
              {t === 'payment' ? 'Every payment (renewals included)' : 'A customer signs up'}
            </option>
          ))}
        </select>
        <span id="flow-trigger-hint" class="hint">
          A signup flow pays a fixed amount and can only have partner conditions.
        </span>

        <label for="flow-group">Partners</label>
        <select id="flow-group" name="group_id">
          <option value="">All partners</option>
          {groups.map((g) => (
            <option value={g.id} selected={flow?.group_id === g.id}>
              Only the group {g.name}
            </option>
          ))}
        </select>

        <fieldset>
          <legend>Reward</legend>
          <div class="row">
            <label for="reward-type">Reward type</label>
            <select id="reward-type" name="reward_type">
              <option value="percentage" selected={reward.type === 'percentage'}>
                Percentage of the payment
              </option>
              <option value="fixed" selected={reward.type === 'fixed'}>
                Fixed amount ({currency})
              </option>
            </select>
            <label for="reward-value">Reward value</label>
            <input
              id="reward-value"
              name="reward_value"
              inputmode="decimal"
              required
              value={rewardValue(reward)}
              size={10}
              aria-describedby="reward-hint"
            />
          </div>
          <span id="reward-hint" class="hint">
            A percentage (0–100, two decimals at most) or an amount such as 5.00; a fixed reward never exceeds the payment.
          </span>
          <details open={(flow?.reward.product_rates?.length ?? 0) > 0}>
            <summary class="button">Rates for some products…</summary>
            {rates.map((r, i) => (
              <div class="row">
                <label for={`rate-product-${i}`}>Product</label>
                <input id={`rate-product-${i}`} name={`rate_product_${i}`} value={r?.product_id ?? ''} maxlength={255} />
                <label for={`rate-type-${i}`}>Rate type</label>
                <select id={`rate-type-${i}`} name={`rate_type_${i}`}>
                  <option value="percentage" selected={r?.type !== 'fixed'}>
                    %
                  </option>
                  <option value="fixed" selected={r?.type === 'fixed'}>
                    {currency}
                  </option>
                </select>
                <label for={`rate-value-${i}`}>Rate</label>
                <input id={`rate-value-${i}`} name={`rate_value_${i}`} inputmode="decimal" value={r ? rewardValue(r) : ''} size={8} />
              </div>
            ))}
            <span class="hint">Leave the product id empty to drop a rate. Save to get another empty row.</span>
          </details>
        </fieldset>

        <fieldset>
          <legend>Conditions (all must hold)</legend>
          {conditions.map((c, i) => (
            <div class="row">
              <label for={`cond-subject-${i}`}>If</label>
              <select id={`cond-subject-${i}`} name={`cond_subject_${i}`}>
                <option value="">—</option>
                {SUBJECTS.map((s) => (
                  <option value={s} selected={c?.subject === s}>
                    {SUBJECT_TEXT[s]}
                  </option>
                ))}
              </select>
              <label for={`cond-op-${i}`} class="visually-hidden">
                Comparison {i + 1}
              </label>
              <select id={`cond-op-${i}`} name={`cond_op_${i}`}>
                {CONDITION_OPS.map((op) => (
                  <option value={op} selected={c?.op === op}>
                    {OP_TEXT[op]}
                  </option>
                ))}
              </select>
              <label for={`cond-value-${i}`} class="visually-hidden">
                Value {i + 1}
              </label>
              <input id={`cond-value-${i}`} name={`cond_value_${i}`} value={c ? conditionValueText(c, currency) : ''} maxlength={2000} />
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
            <label for="approval-type">Approve</label>
            <select id="approval-type" name="approval_type">
              <option value="scheduled" selected={approval.type === 'scheduled'}>
                after a number of days
              </option>
              <option value="immediate" selected={approval.type === 'immediate'}>
                at once
              </option>
              <option value="manual" selected={approval.type === 'manual'}>
                by hand
              </option>
            </select>
            <label for="approval-days">Days (when after a number of days)</label>
            <input
              id="approval-days"
              name="approval_delay_days"
              type="number"
              min={0}
              max={3650}
              value={String(approval.type === 'scheduled' ? approval.delay_days : 30)}
              size={5}
            />
          </div>
        </fieldset>

        <label class="check">
          <input type="checkbox" name="active" checked={flow?.active ?? true} /> Active
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
