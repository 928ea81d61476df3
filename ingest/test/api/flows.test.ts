import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createGroup,
  createPartner,
  createProgram,
  createTransaction,
  defaultFlowOf,
  fullCommission,
} from '../support/factories.js';
import { resource, useTestApp } from '../support/fixture.js';
import { clockPast, DAY_MS, ISO_MS } from '../support/time.js';

/**
 * /v1/flows: the default flow, CRUD, list filters, validation
 * (ingest/docs/commissions.md#commission-flows), and what flows do to commissions through real
 * transactions.
 */

const FLOW_FIELDS = [
  'id',
  'name',
  'trigger',
  'conditions',
  'reward',
  'approval',
  'active',
  'default',
  'group_id',
  'program_id',
  'organization_id',
  'created_at',
  'updated_at',
].sort();

const FLOW_ID = /^flw_[0-9A-Za-z]{24}$/;

describe('commission flows', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });

  const { post, get, put, del, list } = resource(t, '/v1/flows', org);

  /** POST /v1/flows in the given program (expects 201): 10 % immediate unless `body` says otherwise. */
  const newFlow = (programId: string, body: Record<string, unknown> = {}) => createFlow(t, org, { program_id: programId, ...body });

  /** A new program of `org` whose default flow is deleted: only the flows a test makes are live. */
  async function bareProgram(): Promise<ApiObject> {
    const program = await createProgram(t, org);
    expect((await del((await defaultFlowOf(t, org, program)).id)).status).toBe(200);
    return program;
  }

  const partnerIn = (program: ApiObject, overrides: Record<string, unknown> = {}) =>
    createPartner(t, org, { program_id: program.id, ...overrides });

  /** A partner of the program with one active customer. */
  async function payer(program: ApiObject, overrides: Record<string, unknown> = {}) {
    const partner = await partnerIn(program, overrides);
    const customer = await createCustomer(t, org, partner, { status: 'active' });
    return { partner, customer };
  }

  /** The transaction's commissions in full, ordered by amount (flows run oldest first). */
  async function fullCommissionsOf(transaction: ApiObject): Promise<ApiObject[]> {
    const short = await commissionsOf(t, org, transaction);
    return Promise.all(short.map((c) => fullCommission(t, org, c.id)));
  }

  describe('the default flow', () => {
    it('is listed with default:true and the documented values', async () => {
      const res = await list({ program_id: org.program_id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, has_more: false, total_count: 1 });
      const [flow] = res.body.data;
      expect(Object.keys(flow).sort()).toEqual(FLOW_FIELDS);
      expect(flow).toMatchObject({
        name: 'Default: 20% of every payment',
        trigger: 'payment',
        conditions: [],
        reward: { type: 'percentage', value: 20 },
        approval: { type: 'scheduled', delay_days: 30 },
        active: true,
        default: true,
        group_id: null,
        program_id: org.program_id,
        organization_id: org.organization_id,
      });
      expect(flow.reward).toEqual({ type: 'percentage', value: 20 });
      expect(flow.id).toMatch(FLOW_ID);
      expect(flow.created_at).toMatch(ISO_MS);
      expect(flow.updated_at).toMatch(ISO_MS);

      const one = await get(flow.id);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ success: true, data: flow });
    });

    it('a program created later gets its own default flow', async () => {
      const program = await createProgram(t, org);
      const res = await list({ program_id: program.id });
      expect(res.body.total_count).toBe(1);
      expect(res.body.data[0]).toMatchObject({
        default: true,
        program_id: program.id,
        trigger: 'payment',
        reward: { type: 'percentage', value: 20 },
        active: true,
      });
      const original = (await list({ program_id: org.program_id })).body.data[0];
      expect(res.body.data[0].id).not.toBe(original.id);
    });

    it('is live: a payment earns 20 %, pending, approved 30 days after the payment', async () => {
      const program = await createProgram(t, org);
      const defaultFlow = (await list({ program_id: program.id })).body.data[0];
      const { partner, customer } = await payer(program);
      const txn = await createTransaction(t, org, customer, { amount: 4999, created_at: '2030-01-15T10:00:00.000Z' });
      const [c] = await fullCommissionsOf(txn);
      expect(c).toMatchObject({
        amount: '1000',
        revenue: '4999',
        status: 'pending',
        type: 'reward',
        approval_type: 'scheduled',
        flow_id: defaultFlow.id,
        partner_id: partner.id,
        transaction_id: txn.id,
        scheduled_approval_date: '2030-02-14T10:00:00.000Z',
        payout_id: null,
      });
    });
  });

  describe('create, retrieve, list, update, delete', () => {
    it('creates with the documented defaults and retrieves the same object', async () => {
      const before = Date.now();
      const res = await post({ program_id: org.program_id, name: 'Ten percent', reward: { type: 'percentage', value: 10 } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const flow = res.body.data[0];
      expect(Object.keys(flow).sort()).toEqual(FLOW_FIELDS);
      expect(flow).toEqual({
        id: expect.stringMatching(FLOW_ID),
        name: 'Ten percent',
        trigger: 'payment',
        conditions: [],
        reward: { type: 'percentage', value: 10 },
        approval: { type: 'scheduled', delay_days: 30 },
        active: true,
        default: false,
        group_id: null,
        program_id: org.program_id,
        organization_id: org.organization_id,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(Date.parse(flow.created_at)).toBeGreaterThanOrEqual(before - 5);
      expect(flow.updated_at).toBe(flow.created_at);

      const got = await get(flow.id);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ success: true, data: flow });
      expect((await del(flow.id)).status).toBe(200);
    });

    it('stores every field given', async () => {
      const group = await createGroup(t, org);
      const body = {
        program_id: org.program_id,
        name: 'Everything',
        group_id: group.id,
        trigger: 'payment',
        conditions: [
          { subject: 'transaction.amount', op: 'gte', value: 1000 },
          { subject: 'transaction.billing_type', op: 'in', value: ['subscription'] },
          { subject: 'partner.country_code', op: 'neq', value: 'FR' },
        ],
        reward: {
          type: 'percentage',
          value: 12.34,
          product_rates: [
            { product_id: 'pro', type: 'fixed', value: 500 },
            { product_id: 'max', type: 'percentage', value: 0.5 },
          ],
        },
        approval: { type: 'manual' },
        active: false,
      };
      const res = await post(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const { program_id, ...rest } = body;
      expect(res.body.data[0]).toMatchObject({ ...rest, program_id, default: false });
      expect(res.body.data[0].reward).toEqual(body.reward);
      expect(res.body.data[0].conditions).toEqual(body.conditions);
      expect((await get(res.body.data[0].id)).body.data).toEqual(res.body.data[0]);
    });

    it('accepts the boundary values: 0 and 100 percent, two decimals, fixed 0, delay_days 0 and 3650', async () => {
      const program = await createProgram(t, org);
      for (const [reward, approval] of [
        [
          { type: 'percentage', value: 0 },
          { type: 'scheduled', delay_days: 0 },
        ],
        [
          { type: 'percentage', value: 100 },
          { type: 'scheduled', delay_days: 3650 },
        ],
        [{ type: 'percentage', value: 33.33 }, { type: 'immediate' }],
        [{ type: 'fixed', value: 0 }, { type: 'manual' }],
      ]) {
        const flow = await newFlow(program.id, { reward, approval });
        expect(flow.reward).toEqual(reward);
        expect(flow.approval).toEqual(approval);
      }
    });

    it('lists with filters trigger, group_id and active, newest first, and requires program_id', async () => {
      const program = await createProgram(t, org);
      const group = await createGroup(t, org, { program_id: program.id });
      const [defaultFlow] = (await list({ program_id: program.id })).body.data;
      const a = await newFlow(program.id, { name: 'a' });
      const b = await newFlow(program.id, { name: 'b', trigger: 'signup', reward: { type: 'fixed', value: 100 } });
      const c = await newFlow(program.id, { name: 'c', group_id: group.id, active: false });
      const d = await newFlow(program.id, { name: 'd', group_id: group.id, trigger: 'signup', reward: { type: 'fixed', value: 50 } });
      await newFlow(org.program_id, { name: 'elsewhere' });

      const ids = async (q: Record<string, unknown>) => {
        const res = await list({ program_id: program.id, ...q });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.total_count).toBe(res.body.data.length);
        return res.body.data.map((f: ApiObject) => f.id);
      };
      expect(await ids({})).toEqual([d.id, c.id, b.id, a.id, defaultFlow.id]);
      expect(await ids({ order: 'asc' })).toEqual([defaultFlow.id, a.id, b.id, c.id, d.id]);
      expect(await ids({ trigger: 'signup' })).toEqual([d.id, b.id]);
      expect(await ids({ trigger: 'payment' })).toEqual([c.id, a.id, defaultFlow.id]);
      expect(await ids({ group_id: group.id })).toEqual([d.id, c.id]);
      expect(await ids({ active: 'false' })).toEqual([c.id]);
      expect(await ids({ active: 'true' })).toEqual([d.id, b.id, a.id, defaultFlow.id]);
      expect(await ids({ active: 'true', group_id: group.id, trigger: 'signup' })).toEqual([d.id]);

      const page = await list({ program_id: program.id, limit: 2 });
      expect(page.body).toMatchObject({ has_more: true, total_count: 5 });
      const next = await list({ program_id: program.id, limit: 2, starting_after: page.body.data[1].id });
      expect(next.body.data.map((f: ApiObject) => f.id)).toEqual([b.id, a.id]);

      expectError(await t.request.get('/v1/flows').set(org.auth), 400, 'invalid_request_error', 'program_id');
      expectError(await list({ program_id: program.id, trigger: 'refund' }), 400, 'invalid_request_error', 'trigger');
      expectError(await list({ program_id: program.id, active: 'yes' }), 400, 'invalid_request_error', 'active');
      expectError(await list({ program_id: program.id, foo: '1' }), 400, 'invalid_request_error', 'foo');
      expectError(await list({ program_id: 'prg_000000000000000000000000' }), 404, 'not_found_error', 'program_id');
    });

    it('updates every field but program_id, and keeps default', async () => {
      const program = await createProgram(t, org);
      const group = await createGroup(t, org, { program_id: program.id });
      const flow = await newFlow(program.id, { name: 'before' });
      await clockPast(flow.updated_at);
      const changes = {
        name: 'after',
        group_id: group.id,
        conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }],
        reward: { type: 'fixed', value: 1500 },
        approval: { type: 'scheduled', delay_days: 7 },
        active: false,
      };
      const res = await put(flow.id, changes);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(updated).toEqual({ ...flow, ...changes, updated_at: expect.stringMatching(ISO_MS) });
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(flow.updated_at));
      expect((await get(flow.id)).body.data).toEqual(updated);

      // Partial: only the given fields change; group_id null = every group again.
      const back = await put(flow.id, { group_id: null, active: true });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect(back.body.data[0]).toEqual({ ...updated, group_id: null, active: true, updated_at: expect.stringMatching(ISO_MS) });

      expectError(await put(flow.id, { program_id: org.program_id }), 400, 'invalid_request_error', 'program_id');
      expectError(await put(flow.id, { default: false }), 400, 'invalid_request_error', 'default');

      // The default flow can be changed too, and stays the default.
      const [defaultFlow] = (await list({ program_id: program.id, order: 'asc' })).body.data;
      const changedDefault = await put(defaultFlow.id, { reward: { type: 'percentage', value: 25 } });
      expect(changedDefault.status).toBe(200);
      expect(changedDefault.body.data[0]).toMatchObject({
        default: true,
        reward: { type: 'percentage', value: 25 },
        approval: { type: 'scheduled', delay_days: 30 },
      });
    });

    it('deletes softly: gone from retrieve, list, update and delete', async () => {
      const program = await createProgram(t, org);
      const flow = await newFlow(program.id);
      const res = await del(flow.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: flow.id, deleted: true } });
      expectError(await get(flow.id), 404, 'not_found_error');
      expectError(await put(flow.id, { name: 'x' }), 404, 'not_found_error');
      expectError(await del(flow.id), 404, 'not_found_error');
      const listed = await list({ program_id: program.id });
      expect(listed.body.data.map((f: ApiObject) => f.id)).not.toContain(flow.id);
      expect(listed.body.total_count).toBe(1);
      const [row] = await t.storage.db.selectFrom('flows').select(['id', 'deleted_at']).where('id', '=', flow.id).execute();
      expect(row.deleted_at).not.toBeNull();
    });
  });

  describe('validation', () => {
    const base = () => ({ program_id: org.program_id, name: 'Invalid', reward: { type: 'percentage', value: 10 } });
    const cond = (subject: string, op: string, value: unknown) => ({ conditions: [{ subject, op, value }] });

    const cases: [string, Record<string, unknown>, string][] = [
      ['missing program_id', { program_id: undefined }, 'program_id'],
      ['missing name', { name: undefined }, 'name'],
      ['missing reward', { reward: undefined }, 'reward'],
      ['percentage over 100', { reward: { type: 'percentage', value: 100.01 } }, 'reward.value'],
      ['negative percentage', { reward: { type: 'percentage', value: -1 } }, 'reward.value'],
      ['percentage with 3 decimals', { reward: { type: 'percentage', value: 10.125 } }, 'reward.value'],
      ['fixed not an integer', { reward: { type: 'fixed', value: 10.5 } }, 'reward.value'],
      ['negative fixed', { reward: { type: 'fixed', value: -100 } }, 'reward.value'],
      ['reward value as a string', { reward: { type: 'fixed', value: '100' } }, 'reward.value'],
      ['unknown reward type', { reward: { type: 'bonus', value: 10 } }, 'reward.type'],
      ['unknown key in reward', { reward: { type: 'fixed', value: 10, cap: 5 } }, 'reward.cap'],
      [
        'duplicate product_id in product_rates',
        {
          reward: {
            type: 'percentage',
            value: 10,
            product_rates: [
              { product_id: 'pro', type: 'fixed', value: 1 },
              { product_id: 'pro', type: 'percentage', value: 2 },
            ],
          },
        },
        'reward.product_rates',
      ],
      [
        'product rate over 100 %',
        { reward: { type: 'percentage', value: 10, product_rates: [{ product_id: 'pro', type: 'percentage', value: 101 }] } },
        'reward.product_rates.0.value',
      ],
      [
        'product rate without product_id',
        { reward: { type: 'percentage', value: 10, product_rates: [{ type: 'fixed', value: 100 }] } },
        'reward.product_rates.0.product_id',
      ],
      ['scheduled without delay_days', { approval: { type: 'scheduled' } }, 'approval.delay_days'],
      ['delay_days over 3650', { approval: { type: 'scheduled', delay_days: 3651 } }, 'approval.delay_days'],
      ['delay_days on immediate', { approval: { type: 'immediate', delay_days: 3 } }, 'approval.delay_days'],
      ['unknown trigger', { trigger: 'refund' }, 'trigger'],
      ['active not a boolean', { active: 'yes' }, 'active'],
      ['conditions not an array', { conditions: { subject: 'transaction.amount', op: 'gte', value: 1 } }, 'conditions'],
      ['gte on a text subject', cond('transaction.billing_type', 'gte', 'subscription'), 'conditions.0.op'],
      ['lte on partner.country_code', cond('partner.country_code', 'lte', 'US'), 'conditions.0.op'],
      ['in without an array', cond('transaction.product_id', 'in', 'pro'), 'conditions.0.value'],
      ['in with an empty array', cond('transaction.product_id', 'in', []), 'conditions.0.value'],
      ['an array without in', cond('transaction.amount', 'eq', [100]), 'conditions.0.value'],
      ['a string for a number subject', cond('transaction.amount', 'gte', '1000'), 'conditions.0.value'],
      ['a number for a text subject', cond('transaction.billing_type', 'eq', 1), 'conditions.0.value'],
      ['mixed types in an in list', cond('transaction.interval', 'in', ['month', 12]), 'conditions.0.value'],
      ['unknown subject', cond('customer.email', 'eq', 'x'), 'conditions.0.subject'],
      ['unknown op', cond('transaction.amount', 'gt', 1), 'conditions.0.op'],
      [
        'unknown key in a condition',
        { conditions: [{ subject: 'transaction.amount', op: 'gte', value: 1, negate: true }] },
        'conditions.0.negate',
      ],
      ['unknown top-level key', { priority: 1 }, 'priority'],
      ['default is read-only', { default: true }, 'default'],
      ['signup with a percentage reward', { trigger: 'signup', reward: { type: 'percentage', value: 10 } }, 'reward.type'],
      [
        'signup with a transaction.* condition',
        {
          trigger: 'signup',
          reward: { type: 'fixed', value: 500 },
          conditions: [
            { subject: 'partner.country_code', op: 'eq', value: 'US' },
            { subject: 'transaction.amount', op: 'gte', value: 1 },
          ],
        },
        'conditions.1.subject',
      ],
      [
        'signup with a customer.* condition',
        { trigger: 'signup', reward: { type: 'fixed', value: 500 }, ...cond('customer.transaction_count', 'eq', 1) },
        'conditions.0.subject',
      ],
      [
        'signup with product_rates',
        { trigger: 'signup', reward: { type: 'fixed', value: 500, product_rates: [{ product_id: 'pro', type: 'fixed', value: 1 }] } },
        'reward.product_rates',
      ],
    ];

    it.each(cases.map(([name, patch, param]) => ({ name, patch, param })))('$name → 400 naming $param', async ({ patch, param }) => {
      const before = await t.storage.db
        .selectFrom('flows')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expectError(await post({ ...base(), ...patch }), 400, 'invalid_request_error', param);
      const after = await t.storage.db
        .selectFrom('flows')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    });

    it('a signup flow with a fixed reward and partner.* conditions is valid', async () => {
      const res = await post({
        ...base(),
        trigger: 'signup',
        reward: { type: 'fixed', value: 500 },
        conditions: [{ subject: 'partner.total_customers', op: 'lte', value: 10 }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data[0]).toMatchObject({ trigger: 'signup', reward: { type: 'fixed', value: 500 } });
      expect((await del(res.body.data[0].id)).status).toBe(200);
    });

    it('an update that would make a signup flow invalid → 400 and the flow unchanged', async () => {
      const program = await createProgram(t, org);
      const percent = await newFlow(program.id, { reward: { type: 'percentage', value: 15 } });
      expectError(await put(percent.id, { trigger: 'signup' }), 400, 'invalid_request_error', 'reward.type');
      expect((await get(percent.id)).body.data).toEqual(percent);

      const conditioned = await newFlow(program.id, {
        reward: { type: 'fixed', value: 300 },
        conditions: [{ subject: 'transaction.amount', op: 'gte', value: 100 }],
      });
      expectError(await put(conditioned.id, { trigger: 'signup' }), 400, 'invalid_request_error', 'conditions.0.subject');
      expect((await get(conditioned.id)).body.data).toEqual(conditioned);

      const rated = await newFlow(program.id, {
        reward: { type: 'fixed', value: 300, product_rates: [{ product_id: 'p', type: 'fixed', value: 1 }] },
      });
      expectError(await put(rated.id, { trigger: 'signup' }), 400, 'invalid_request_error', 'reward.product_rates');
      expect((await get(rated.id)).body.data).toEqual(rated);

      const signup = await newFlow(program.id, { trigger: 'signup', reward: { type: 'fixed', value: 300 } });
      expectError(await put(signup.id, { reward: { type: 'percentage', value: 5 } }), 400, 'invalid_request_error', 'reward.type');
      expectError(
        await put(signup.id, { conditions: [{ subject: 'transaction.source', op: 'eq', value: 'stripe' }] }),
        400,
        'invalid_request_error',
        'conditions.0.subject',
      );
      expect((await get(signup.id)).body.data).toEqual(signup);

      // Valid once the merged result is: trigger and a fixed reward together.
      const ok = await put(percent.id, { trigger: 'signup', reward: { type: 'fixed', value: 700 } });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.data[0]).toMatchObject({ trigger: 'signup', reward: { type: 'fixed', value: 700 } });
      // Back to payment with a percentage is valid as well.
      const again = await put(percent.id, { trigger: 'payment', reward: { type: 'percentage', value: 1 } });
      expect(again.status).toBe(200);
    });

    it('update validation names the parameter', async () => {
      const program = await createProgram(t, org);
      const flow = await newFlow(program.id);
      expectError(await put(flow.id, { reward: { type: 'percentage', value: 150 } }), 400, 'invalid_request_error', 'reward.value');
      expectError(await put(flow.id, { approval: { type: 'scheduled' } }), 400, 'invalid_request_error', 'approval.delay_days');
      expectError(
        await put(flow.id, { conditions: [{ subject: 'transaction.currency', op: 'gte', value: 'USD' }] }),
        400,
        'invalid_request_error',
        'conditions.0.op',
      );
      expectError(await put(flow.id, { name: '' }), 400, 'invalid_request_error', 'name');
      expectError(await put(flow.id, { colour: 'red' }), 400, 'invalid_request_error', 'colour');
      expect((await get(flow.id)).body.data).toEqual(flow);
    });

    it('a group of another program, an unknown group or another organization’s group → 404 group_id', async () => {
      const program = await createProgram(t, org);
      const groupElsewhere = await createGroup(t, org); // of org.program_id
      const foreignGroup = await createGroup(t, otherOrg);
      const badGroups = [groupElsewhere.id, foreignGroup.id, 'grp_000000000000000000000000'];
      for (const group_id of badGroups) {
        expectError(
          await post({ program_id: program.id, name: 'g', reward: { type: 'fixed', value: 1 }, group_id }),
          404,
          'not_found_error',
          'group_id',
        );
      }
      const flow = await newFlow(program.id);
      for (const group_id of badGroups) {
        expectError(await put(flow.id, { group_id }), 404, 'not_found_error', 'group_id');
      }
      expect((await get(flow.id)).body.data).toEqual(flow);
      expectError(
        await post({ program_id: 'prg_000000000000000000000000', name: 'g', reward: { type: 'fixed', value: 1 } }),
        404,
        'not_found_error',
        'program_id',
      );
    });
  });

  describe('effects through transactions', () => {
    it('an inactive flow creates nothing; PUT active:true turns it on', async () => {
      const program = await bareProgram();
      const flow = await newFlow(program.id, { active: false, reward: { type: 'percentage', value: 10 } });
      const { customer } = await payer(program);
      const t1 = await createTransaction(t, org, customer, { amount: 10_000 });
      expect(await commissionsOf(t, org, t1)).toEqual([]);

      expect((await put(flow.id, { active: true })).status).toBe(200);
      const t2 = await createTransaction(t, org, customer, { amount: 10_000 });
      const [c] = await fullCommissionsOf(t2);
      expect(c).toMatchObject({
        amount: '1000',
        flow_id: flow.id,
        status: 'approved',
        approval_type: 'immediate',
        scheduled_approval_date: null,
      });
      // The earlier transaction is not credited after the fact.
      expect(await commissionsOf(t, org, t1)).toEqual([]);

      expect((await put(flow.id, { active: false })).status).toBe(200);
      expect(await commissionsOf(t, org, await createTransaction(t, org, customer))).toEqual([]);
    });

    it('a deleted flow creates nothing and its earlier commissions keep flow_id', async () => {
      const program = await bareProgram();
      const flow = await newFlow(program.id, { reward: { type: 'fixed', value: 250 }, approval: { type: 'manual' } });
      const { customer } = await payer(program);
      const t1 = await createTransaction(t, org, customer, { amount: 10_000 });
      const [before] = await commissionsOf(t, org, t1);
      expect(before).toMatchObject({ amount: 250, status: 'pending' });

      expect((await del(flow.id)).status).toBe(200);
      const t2 = await createTransaction(t, org, customer, { amount: 10_000 });
      expect(await commissionsOf(t, org, t2)).toEqual([]);

      const got = await t.request.get(`/v1/commissions/${before.id}`).set(org.auth);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(before);
      expect(await fullCommission(t, org, before.id)).toMatchObject({
        flow_id: flow.id,
        approval_type: 'manual',
        amount: '250',
        status: 'pending',
        scheduled_approval_date: null,
      });
    });

    it('an update applies to later payments only; earlier commissions keep their amounts', async () => {
      const program = await bareProgram();
      const flow = await newFlow(program.id, { reward: { type: 'percentage', value: 10 } });
      const { customer } = await payer(program);
      const t1 = await createTransaction(t, org, customer, { amount: 10_000 });
      expect((await put(flow.id, { reward: { type: 'percentage', value: 30 } })).status).toBe(200);
      const t2 = await createTransaction(t, org, customer, { amount: 10_000 });
      expect((await commissionsOf(t, org, t1)).map((c) => c.amount)).toEqual([1000]);
      expect((await commissionsOf(t, org, t2)).map((c) => c.amount)).toEqual([3000]);
    });

    it('several flows → one commission each, with their own approval', async () => {
      const program = await bareProgram();
      const f1 = await newFlow(program.id, { reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } });
      const f2 = await newFlow(program.id, { reward: { type: 'fixed', value: 250 }, approval: { type: 'manual' } });
      const f3 = await newFlow(program.id, { reward: { type: 'percentage', value: 12.5 }, approval: { type: 'scheduled', delay_days: 7 } });
      // A reward that rounds to 0 cents creates nothing; a signup flow does not run on payments.
      await newFlow(program.id, { reward: { type: 'percentage', value: 0 } });
      await newFlow(program.id, { trigger: 'signup', reward: { type: 'fixed', value: 999 } });
      const { partner, customer } = await payer(program);
      const txn = await createTransaction(t, org, customer, { amount: 1001, created_at: '2031-03-01T00:00:00.000Z' });
      const all = await fullCommissionsOf(txn);
      expect(all).toHaveLength(3);
      const byFlow = new Map(all.map((c) => [c.flow_id, c]));
      expect(new Set(byFlow.keys())).toEqual(new Set([f1.id, f2.id, f3.id]));
      const common = {
        type: 'reward',
        partner_id: partner.id,
        customer_id: customer.id,
        transaction_id: txn.id,
        revenue: '1001',
        currency: 'USD',
        charge_id: txn.charge_id,
        charge_status: 'paid',
      };
      // 10 % of 10.01 = 1.001 → 100 cents; 12.5 % of 10.01 = 1.25125 → 125 cents; 2.50 capped? no: 250 ≤ 1001.
      expect(byFlow.get(f1.id)).toMatchObject({
        ...common,
        amount: '100',
        status: 'approved',
        approval_type: 'immediate',
        scheduled_approval_date: null,
      });
      expect(byFlow.get(f2.id)).toMatchObject({
        ...common,
        amount: '250',
        status: 'pending',
        approval_type: 'manual',
        scheduled_approval_date: null,
      });
      expect(byFlow.get(f3.id)).toMatchObject({
        ...common,
        amount: '125',
        status: 'pending',
        approval_type: 'scheduled',
        scheduled_approval_date: new Date(Date.parse('2031-03-01T00:00:00.000Z') + 7 * DAY_MS).toISOString(),
      });

      // A fixed reward never exceeds the payment.
      const small = await createTransaction(t, org, customer, { amount: 200 });
      const smallByFlow = new Map((await fullCommissionsOf(small)).map((c) => [c.flow_id, c.amount]));
      expect(Object.fromEntries(smallByFlow)).toEqual({ [f1.id]: '20', [f2.id]: '200', [f3.id]: '25' });
    });

    it('a group-scoped flow only pays the partners of its group', async () => {
      const program = await bareProgram();
      const vip = await createGroup(t, org, { program_id: program.id, name: 'VIP' });
      const everyone = await newFlow(program.id, { reward: { type: 'percentage', value: 5 } });
      const vipOnly = await newFlow(program.id, { reward: { type: 'percentage', value: 10 }, group_id: vip.id });
      const inVip = await payer(program, { group_id: vip.id });
      const outside = await payer(program);

      const paidVip = await fullCommissionsOf(await createTransaction(t, org, inVip.customer, { amount: 10_000 }));
      expect(paidVip.map((c) => [c.flow_id, c.amount]).sort()).toEqual(
        [
          [everyone.id, '500'],
          [vipOnly.id, '1000'],
        ].sort(),
      );
      const paidOther = await fullCommissionsOf(await createTransaction(t, org, outside.customer, { amount: 10_000 }));
      expect(paidOther.map((c) => [c.flow_id, c.amount])).toEqual([[everyone.id, '500']]);

      // Moving the partner into the group changes what later payments earn.
      expect((await t.request.put(`/v1/partners/${outside.partner.id}`).set(org.auth).send({ group_id: vip.id })).status).toBe(200);
      const paidMoved = await commissionsOf(t, org, await createTransaction(t, org, outside.customer, { amount: 10_000 }));
      expect(paidMoved.map((c) => c.amount).sort()).toEqual([1000, 500]);
    });

    it('first payment only: customer.transaction_count eq 1', async () => {
      const program = await bareProgram();
      const flow = await newFlow(program.id, {
        conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }],
        reward: { type: 'fixed', value: 1000 },
      });
      const { partner, customer } = await payer(program);
      const first = await fullCommissionsOf(await createTransaction(t, org, customer, { amount: 5000 }));
      expect(first.map((c) => [c.flow_id, c.amount])).toEqual([[flow.id, '1000']]);
      expect(await commissionsOf(t, org, await createTransaction(t, org, customer, { amount: 5000 }))).toEqual([]);
      // Another customer of the same partner has its own first payment.
      const second = await createCustomer(t, org, partner, { status: 'active' });
      expect((await commissionsOf(t, org, await createTransaction(t, org, second, { amount: 5000 }))).map((c) => c.amount)).toEqual([1000]);
    });

    it('product_rates replace the base rate for their product', async () => {
      const program = await bareProgram();
      await newFlow(program.id, {
        reward: {
          type: 'percentage',
          value: 10,
          product_rates: [
            { product_id: 'pro', type: 'fixed', value: 700 },
            { product_id: 'basic', type: 'percentage', value: 2.5 },
          ],
        },
      });
      const { customer } = await payer(program);
      const amountFor = async (overrides: Record<string, unknown>) => {
        const cs = await commissionsOf(t, org, await createTransaction(t, org, customer, overrides));
        return cs.map((c) => c.amount);
      };
      expect(await amountFor({ amount: 10_000, product_id: 'pro' })).toEqual([700]);
      expect(await amountFor({ amount: 500, product_id: 'pro' })).toEqual([500]);
      expect(await amountFor({ amount: 10_000, product_id: 'basic' })).toEqual([250]);
      expect(await amountFor({ amount: 10_000, product_id: 'other' })).toEqual([1000]);
      expect(await amountFor({ amount: 10_000 })).toEqual([1000]);
      // product_name is not product_id.
      expect(await amountFor({ amount: 10_000, product_name: 'pro' })).toEqual([1000]);
    });

    it('billing_type in [...]', async () => {
      const program = await bareProgram();
      await newFlow(program.id, { conditions: [{ subject: 'transaction.billing_type', op: 'in', value: ['subscription'] }] });
      await newFlow(program.id, {
        conditions: [{ subject: 'transaction.interval', op: 'in', value: ['year'] }],
        reward: { type: 'fixed', value: 1 },
      });
      const { customer } = await payer(program);
      expect(
        (await commissionsOf(t, org, await createTransaction(t, org, customer, { billing_type: 'subscription', interval: 'month' }))).map(
          (c) => c.amount,
        ),
      ).toEqual([1000]);
      expect(
        (await commissionsOf(t, org, await createTransaction(t, org, customer, { billing_type: 'subscription', interval: 'year' })))
          .map((c) => c.amount)
          .sort(),
      ).toEqual([1, 1000]);
      expect(await commissionsOf(t, org, await createTransaction(t, org, customer, { billing_type: 'one_time' }))).toEqual([]);
    });

    it('partner.country_code: eq needs the country; neq holds for a partner without one', async () => {
      const program = await bareProgram();
      const eqDe = await newFlow(program.id, {
        conditions: [{ subject: 'partner.country_code', op: 'eq', value: 'DE' }],
        reward: { type: 'fixed', value: 100 },
      });
      const neqDe = await newFlow(program.id, {
        conditions: [{ subject: 'partner.country_code', op: 'neq', value: 'DE' }],
        reward: { type: 'fixed', value: 200 },
      });
      const flowsOf = async (overrides: Record<string, unknown>) => {
        const { customer } = await payer(program, overrides);
        return (await fullCommissionsOf(await createTransaction(t, org, customer))).map((c) => c.flow_id);
      };
      expect(await flowsOf({ country_code: 'DE' })).toEqual([eqDe.id]);
      expect(await flowsOf({ country_code: 'US' })).toEqual([neqDe.id]);
      expect(await flowsOf({})).toEqual([neqDe.id]);
    });

    it('transaction.amount gte and lte', async () => {
      const program = await bareProgram();
      const big = await newFlow(program.id, {
        conditions: [{ subject: 'transaction.amount', op: 'gte', value: 5000 }],
        reward: { type: 'fixed', value: 100 },
      });
      const small = await newFlow(program.id, {
        conditions: [{ subject: 'transaction.amount', op: 'lte', value: 4999 }],
        reward: { type: 'fixed', value: 1 },
      });
      const { customer } = await payer(program);
      const flowsFor = async (amount: number) =>
        (await fullCommissionsOf(await createTransaction(t, org, customer, { amount }))).map((c) => c.flow_id);
      expect(await flowsFor(5000)).toEqual([big.id]);
      expect(await flowsFor(4999)).toEqual([small.id]);
      expect(await flowsFor(1_000_000)).toEqual([big.id]);
    });

    it('a signup flow pays its fixed reward when a customer is created, scheduled from the signup', async () => {
      const program = await bareProgram();
      const flow = await newFlow(program.id, {
        trigger: 'signup',
        reward: { type: 'fixed', value: 500 },
        approval: { type: 'scheduled', delay_days: 10 },
        conditions: [{ subject: 'partner.country_code', op: 'eq', value: 'US' }],
      });
      const us = await partnerIn(program, { country_code: 'US' });
      const fr = await partnerIn(program, { country_code: 'FR' });
      const signupsOf = async (customer: ApiObject) => {
        const res = await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, customer_id: customer.id });
        expect(res.status).toBe(200);
        return Promise.all(res.body.data.map((c: ApiObject) => fullCommission(t, org, c.id)));
      };
      const customer = await createCustomer(t, org, us, { created_at: '2030-05-01T00:00:00.000Z' });
      expect(await signupsOf(customer)).toEqual([
        expect.objectContaining({
          amount: '500',
          revenue: null,
          transaction_id: null,
          flow_id: flow.id,
          status: 'pending',
          approval_type: 'scheduled',
          scheduled_approval_date: '2030-05-11T00:00:00.000Z',
          partner_id: us.id,
          currency: 'USD',
        }),
      ]);
      expect(await signupsOf(await createCustomer(t, org, fr))).toEqual([]);
      // The signup flow does not run on payments.
      expect(await commissionsOf(t, org, await createTransaction(t, org, customer))).toEqual([]);
    });

    it("a suspended partner's customer pays → the transaction is recorded, no commission", async () => {
      const program = await bareProgram();
      await newFlow(program.id, { reward: { type: 'percentage', value: 10 } });
      const { partner, customer } = await payer(program);
      expect((await t.request.put(`/v1/partners/${partner.id}`).set(org.auth).send({ status: 'suspended' })).status).toBe(200);
      const txn = await createTransaction(t, org, customer, { amount: 8000 });
      expect(txn).toMatchObject({ amount: 8000, partner_id: partner.id, status: 'paid' });
      const got = await t.request.get(`/v1/transactions/${txn.id}`).set(org.auth);
      expect(got.status).toBe(200);
      expect(got.body.data.id).toBe(txn.id);
      expect(await commissionsOf(t, org, txn)).toEqual([]);

      // Active again: the next payment earns.
      expect((await t.request.put(`/v1/partners/${partner.id}`).set(org.auth).send({ status: 'active' })).status).toBe(200);
      expect((await commissionsOf(t, org, await createTransaction(t, org, customer, { amount: 8000 }))).map((c) => c.amount)).toEqual([
        800,
      ]);
    });
  });

  describe('tenant isolation', () => {
    it("another organization's flow → 404 on GET/PUT/DELETE, and it stays as it was", async () => {
      const [theirs] = (await list({ program_id: otherOrg.program_id }, otherOrg)).body.data;
      expect(theirs.default).toBe(true);
      for (const res of [await get(theirs.id), await put(theirs.id, { active: false, name: 'hijacked' }), await del(theirs.id)]) {
        expectError(res, 404, 'not_found_error');
        expect(JSON.stringify(res.body)).not.toContain(otherOrg.program_id);
      }
      expect((await get(theirs.id, undefined, otherOrg)).body.data).toEqual(theirs);
    });

    it("another organization's program_id → 404 on create and list", async () => {
      expectError(
        await post({ program_id: otherOrg.program_id, name: 'x', reward: { type: 'fixed', value: 1 } }),
        404,
        'not_found_error',
        'program_id',
      );
      expectError(await list({ program_id: otherOrg.program_id }), 404, 'not_found_error', 'program_id');
      expect((await list({ program_id: otherOrg.program_id }, otherOrg)).body.total_count).toBe(1);
    });
  });
});
