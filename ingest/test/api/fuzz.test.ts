import fc from 'fast-check';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIXES, randomBase62 } from '../../src/ids.js';
import {
  type ApiObject,
  createClick,
  createCustomer,
  createFlow,
  createGroup,
  createLink,
  createOrganization,
  createPartner,
  createPromotionCode,
  createTransaction,
  type TestOrg,
  uniqueCode,
  uniqueEmail,
  uniqueLinkValue,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import {
  allowedTypes,
  BAD_TIMESTAMPS,
  type Baseline,
  badEncoding,
  bodySlots,
  brokenJson,
  build,
  changedTables,
  cloneJson,
  defineKey,
  describeRequest,
  enc,
  expectClientError,
  expectErrorEnvelope,
  type FieldSlot,
  type FuzzRequest,
  fingerprint,
  getAt,
  invalidString,
  invalidValue,
  type JsonSchema,
  jsonBytes,
  LONE_SURROGATES,
  type Operation,
  operationsOf,
  pathText,
  RawJson,
  type RequestParts,
  recordObjects,
  send,
  setAt,
  strictObjects,
  UNKNOWN_KEYS,
  UNSTORABLE_TIMESTAMPS,
  WRONG_CONTENT_TYPES,
} from '../support/fuzz.js';
import { STORAGE, type TestApp } from '../support/harness.js';
import { newWebhookSecret, stripeCustomer, stripeEvent } from '../support/stripe-events.js';

/**
 * No documented endpoint answers 5xx to a malformed request.
 *
 * For every operation of the OpenAPI document, fast-check sends requests no valid client sends
 * (wrong types, oversized strings, NUL and lone surrogates, numbers JSON cannot hold exactly,
 * deep nesting, unknown and repeated query parameters, bad cursors and path ids, broken
 * percent-encoding, wrong content types and encodings, bytes that are not UTF-8, truncated JSON,
 * bodies where none belongs) and demands a 4xx in the error envelope, with the database exactly
 * as it was. Ids of another organization or of the wrong kind must answer 4xx too, and boundary
 * values that may well be valid must never answer 5xx.
 *
 * FUZZ_SEED=<n> replays a run (the seed is printed on failure), FUZZ_RUNS=<n> sets the runs per
 * operation, FUZZ_CHECK_EACH=1 compares the database after every request instead of after every
 * operation (slower, names the request that wrote).
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 0x7fffffff);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const CHECK_EACH = process.env.FUZZ_CHECK_EACH === '1';
/** Generous per-test time: shrinking a failure replays many requests. */
const TIMEOUT = 60_000 + RUNS * 400;

type Kind =
  | 'organization'
  | 'program'
  | 'group'
  | 'partner'
  | 'link'
  | 'click'
  | 'customer'
  | 'promotionCode'
  | 'flow'
  | 'transaction'
  | 'commission'
  | 'apiKey'
  | 'webhookEndpoint'
  | 'event'
  | 'payout'
  | 'riskEvent'
  | 'publicKey';

/** The id prefixes the service gives out (ids.ts), and the public key's. */
const PREFIX: Record<Kind, string> = { ...ID_PREFIXES, publicKey: 'pk' };

/** One record of every kind, made through the API, in one organization. */
interface Graph {
  org: TestOrg;
  ids: Record<Kind, string>;
  /** The default group (the one in `ids` is another, deletable, group). */
  defaultGroup: string;
  link: ApiObject;
  /** Which kind each id of the graph is. */
  kindOf: Map<string, Kind>;
  /** The signing secret Stripe is connected to the program with. */
  stripeSecret: string;
}

async function makeGraph(t: TestApp): Promise<Graph> {
  const org = await createOrganization(t);
  const group = await createGroup(t, org);
  const partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: uniqueEmail('pay') } });
  const link = await createLink(t, org, partner);
  const click = await createClick(t, org, { partner_id: partner.id, link_id: link.id });
  const customer = await createCustomer(t, org, partner, { click_id: click.id });
  const code = await createPromotionCode(t, org, { partner_id: partner.id });
  const flow = await createFlow(t, org);
  const transaction = await createTransaction(t, org, customer);
  const commission = await t.request
    .post('/v1/commissions')
    .set(org.auth)
    .send({ amount: 100, customer_id: customer.id, transaction_id: transaction.id });
  expect(commission.status, JSON.stringify(commission.body)).toBe(201);
  const apiKey = await t.request.post('/v1/api-keys').set(org.auth).send({ name: 'fuzz' });
  expect(apiKey.status, JSON.stringify(apiKey.body)).toBe(201);
  // A payout of an approved commission of the partner.
  const approved = await t.request
    .post('/v1/commissions')
    .set(org.auth)
    .send({ amount: 1000, customer_id: customer.id, status: 'approved' });
  expect(approved.status, JSON.stringify(approved.body)).toBe(201);
  const generated = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: org.program_id });
  expect(generated.status, JSON.stringify(generated.body)).toBe(201);
  // A risk event: a customer signed up with the e-mail of a partner of their own (self-referral).
  const flagged = await createPartner(t, org);
  await createCustomer(t, org, flagged, { email: flagged.email });
  const risk = await t.request.get('/v1/risk-events').set(org.auth).query({ partner_id: flagged.id });
  expect(risk.body.data, 'the risk event of the graph').toHaveLength(1);
  const endpoint = await t.request.post('/v1/webhook-endpoints').set(org.auth).send({ url: 'https://hooks.example.com/fuzz' });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  const events = await t.request.get('/v1/events').set(org.auth).query({ type: 'partner.created', limit: 100 });
  const partnerCreated = events.body.data.find((e: ApiObject) => e.data.id === partner.id);
  expect(partnerCreated, 'the partner.created event of the graph').toBeDefined();
  const stripeSecret = newWebhookSecret();
  const stripe = await t.request
    .put(`/v1/programs/${org.program_id}/integrations/stripe`)
    .set(org.auth)
    .send({ webhook_secret: stripeSecret });
  expect(stripe.status, JSON.stringify(stripe.body)).toBe(200);
  const ids: Record<Kind, string> = {
    organization: org.organization_id,
    program: org.program_id,
    group: group.id,
    partner: partner.id,
    link: link.id,
    click: click.id,
    customer: customer.id,
    promotionCode: code.id,
    flow: flow.id,
    transaction: transaction.id,
    commission: commission.body.data[0].id,
    apiKey: apiKey.body.data[0].id,
    webhookEndpoint: endpoint.body.data[0].id,
    event: partnerCreated.id,
    payout: generated.body.data.payouts[0].id,
    riskEvent: risk.body.data[0].id,
    publicKey: org.public_key,
  };
  const kindOf = new Map<string, Kind>(Object.entries(ids).map(([k, v]) => [v, k as Kind]));
  kindOf.set(org.group_id, 'group');
  return { org, ids, defaultGroup: org.group_id, link, kindOf, stripeSecret };
}

/**
 * A valid request for every operation of the document. The malformed requests are each one of
 * these with something broken, so that what is broken is the only thing wrong with them.
 */
const BASELINES: Record<string, (g: Graph) => Baseline> = {
  'POST /v1/track/click': (g) => ({
    body: {
      key: g.ids.publicKey,
      param: g.link.param,
      value: g.link.value,
      page: 'https://acme.example/landing',
      referrer: 'https://news.example/',
    },
  }),
  'POST /v1/track/signup': (g) => ({ body: { key: g.ids.publicKey, click_id: g.ids.click, identifier: uniqueEmail('signup') } }),
  'POST /v1/api-keys': () => ({ body: { name: 'Key' } }),
  'GET /v1/api-keys': () => ({ query: { limit: '10' } }),
  'DELETE /v1/api-keys/{id}': (g) => ({ params: { id: g.ids.apiKey } }),
  'GET /v1/programs': () => ({ query: { order: 'asc' } }),
  'POST /v1/programs': () => ({
    body: { name: `Program ${uniqueSuffix()}`, cookie_duration: 30, url_params: ['ref', 'via'], currency_code: 'EUR' },
  }),
  'GET /v1/programs/{id}': (g) => ({ params: { id: g.ids.program } }),
  'PUT /v1/programs/{id}': (g) => ({
    params: { id: g.ids.program },
    body: { product_name: 'Renamed', payout_methods: ['paypal'], cookie_duration: 60 },
  }),
  'GET /v1/risk-events': (g) => ({ query: { program_id: g.ids.program, status: 'open', rule: 'self_referral' } }),
  'GET /v1/risk-events/{id}': (g) => ({ params: { id: g.ids.riskEvent } }),
  'POST /v1/risk-events/{id}/resolve': (g) => ({ params: { id: g.ids.riskEvent }, body: { action: 'dismiss', reason: 'Checked' } }),
  'GET /v1/programs/{id}/risk-rules': (g) => ({ params: { id: g.ids.program } }),
  'PUT /v1/programs/{id}/risk-rules': (g) => ({
    params: { id: g.ids.program },
    body: { click_flooding: { max_clicks_per_hour: 30 }, banned_referral_source: { hosts: ['coupons.example'] } },
  }),
  'GET /v1/groups': (g) => ({ query: { program_id: g.ids.program } }),
  'POST /v1/groups': (g) => ({ body: { program_id: g.ids.program, name: 'Gold', description: 'Top partners' } }),
  'GET /v1/groups/{id}': (g) => ({ params: { id: g.ids.group } }),
  'PUT /v1/groups/{id}': (g) => ({ params: { id: g.ids.group }, body: { name: 'Platinum', description: null } }),
  'DELETE /v1/groups/{id}': (g) => ({ params: { id: g.ids.group } }),
  'POST /v1/partners': (g) => ({
    body: {
      program_id: g.ids.program,
      group_id: g.defaultGroup,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: uniqueEmail(),
      country_code: 'GB',
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('pay') },
    },
  }),
  'GET /v1/partners': (g) => ({ query: { program_id: g.ids.program, expand: 'group', status: 'active' } }),
  'GET /v1/partners/{id}': (g) => ({ params: { id: g.ids.partner }, query: { include: 'stats' } }),
  'PUT /v1/partners/{id}': (g) => ({
    params: { id: g.ids.partner },
    body: { company_name: 'Engines', group_id: g.defaultGroup, internal_note: 'note' },
  }),
  'DELETE /v1/partners/{id}': (g) => ({ params: { id: g.ids.partner } }),
  'POST /v1/links': (g) => ({ body: { param: 'ref', value: uniqueLinkValue(), partner_id: g.ids.partner } }),
  'GET /v1/links': (g) => ({ query: { program_id: g.ids.program, param: 'ref' } }),
  'GET /v1/links/{id}': (g) => ({ params: { id: g.ids.link }, query: { expand: 'partner' } }),
  'PUT /v1/links/{id}': (g) => ({ params: { id: g.ids.link }, body: { value: uniqueLinkValue() } }),
  'DELETE /v1/links/{id}': (g) => ({ params: { id: g.ids.link } }),
  'POST /v1/clicks': (g) => ({
    body: { partner_id: g.ids.partner, link_id: g.ids.link, country: 'us', device: 'mobile', page: 'https://acme.example/' },
  }),
  'POST /v1/promotion-codes': (g) => ({
    body: { program_id: g.ids.program, code: uniqueCode(), type: 'fixed', value: 500, partner_id: g.ids.partner },
  }),
  'GET /v1/promotion-codes': (g) => ({ query: { program_id: g.ids.program } }),
  'GET /v1/promotion-codes/{id}': (g) => ({ params: { id: g.ids.promotionCode } }),
  'PUT /v1/promotion-codes/{id}': (g) => ({ params: { id: g.ids.promotionCode }, body: { value: 20, active: true } }),
  'DELETE /v1/promotion-codes/{id}': (g) => ({ params: { id: g.ids.promotionCode } }),
  'POST /v1/customers': (g) => ({
    body: {
      email: uniqueEmail('cust'),
      partner_id: g.ids.partner,
      click_id: g.ids.click,
      name: 'Grace',
      status: 'trialing',
      created_at: '2026-01-31T12:00:00.000Z',
    },
  }),
  'GET /v1/customers': (g) => ({ query: { program_id: g.ids.program, search: 'example' } }),
  'GET /v1/customers/{id}': (g) => ({ params: { id: g.ids.customer }, query: { include: 'stats' } }),
  'PUT /v1/customers/{id}': (g) => ({
    params: { id: g.ids.customer },
    body: { name: 'Grace Hopper', plan: 'pro', active_at: '2026-02-01T00:00:00Z' },
  }),
  'DELETE /v1/customers/{id}': (g) => ({ params: { id: g.ids.customer } }),
  'POST /v1/flows': (g) => ({
    body: {
      program_id: g.ids.program,
      group_id: g.defaultGroup,
      name: 'Big payments',
      conditions: [{ subject: 'transaction.amount', op: 'gte', value: 1000 }],
      reward: { type: 'percentage', value: 12.5, product_rates: [{ product_id: 'pro', type: 'fixed', value: 300 }] },
      approval: { type: 'scheduled', delay_days: 14 },
    },
  }),
  'GET /v1/flows': (g) => ({ query: { program_id: g.ids.program, active: 'true' } }),
  'GET /v1/flows/{id}': (g) => ({ params: { id: g.ids.flow } }),
  'PUT /v1/flows/{id}': (g) => ({ params: { id: g.ids.flow }, body: { name: 'Renamed flow', approval: { type: 'manual' } } }),
  'DELETE /v1/flows/{id}': (g) => ({ params: { id: g.ids.flow } }),
  'POST /v1/transactions': (g) => ({
    body: {
      amount: 4900,
      customer_id: g.ids.customer,
      charge_id: `ch_${uniqueSuffix()}`,
      billing_type: 'subscription',
      interval: 'month',
      currency: 'usd',
      created_at: '2026-01-31T12:00:00+02:00',
    },
  }),
  'GET /v1/transactions': (g) => ({ query: { program_id: g.ids.program, expand: 'customer' } }),
  'GET /v1/transactions/{id}': (g) => ({ params: { id: g.ids.transaction } }),
  'PUT /v1/transactions/{id}': (g) => ({ params: { id: g.ids.transaction }, body: { product_name: 'Pro plan', source: 'stripe' } }),
  'PUT /v1/transactions/{id}/refund': (g) => ({ params: { id: g.ids.transaction }, body: { amount: 1 } }),
  'DELETE /v1/transactions/{id}': (g) => ({ params: { id: g.ids.transaction } }),
  'POST /v1/commissions': (g) => ({
    body: { amount: 250, customer_id: g.ids.customer, transaction_id: g.ids.transaction, status: 'approved', revenue: 4900 },
  }),
  'GET /v1/commissions': (g) => ({ query: { program_id: g.ids.program, status: 'pending' } }),
  'GET /v1/commissions/{id}': (g) => ({ params: { id: g.ids.commission }, query: { expand: 'transaction' } }),
  'PUT /v1/commissions/{id}': (g) => ({
    params: { id: g.ids.commission },
    body: { source: 'manual', created_at: '2026-01-01T00:00:00Z', status: 'rejected', rejection_reason: 'Duplicate order' },
  }),
  'DELETE /v1/commissions/{id}': (g) => ({ params: { id: g.ids.commission } }),
  // Options only: a new secret would leave the webhook's baseline signed with the old one.
  'PUT /v1/programs/{id}/integrations/stripe': (g) => ({ params: { id: g.ids.program }, body: { tax_counts_as_revenue: true } }),
  'GET /v1/programs/{id}/integrations/stripe': (g) => ({ params: { id: g.ids.program } }),
  'DELETE /v1/programs/{id}/integrations/stripe': (g) => ({ params: { id: g.ids.program } }),
  'GET /v1/programs/{id}/integrations/stripe/events': (g) => ({
    params: { id: g.ids.program },
    query: { status: 'ignored', type: 'customer.created' },
  }),
  'POST /v1/webhook-endpoints': (g) => ({
    body: {
      url: 'https://hooks.example.com/svc',
      description: 'CRM sync',
      events: ['partner.created', 'commission.*'],
      program_id: g.ids.program,
    },
  }),
  'GET /v1/webhook-endpoints': (g) => ({ query: { program_id: g.ids.program } }),
  'GET /v1/webhook-endpoints/{id}': (g) => ({ params: { id: g.ids.webhookEndpoint } }),
  'PUT /v1/webhook-endpoints/{id}': (g) => ({
    params: { id: g.ids.webhookEndpoint },
    body: { description: 'Renamed', events: ['*'], enabled: true },
  }),
  'DELETE /v1/webhook-endpoints/{id}': (g) => ({ params: { id: g.ids.webhookEndpoint } }),
  'POST /v1/webhook-endpoints/{id}/rotate-secret': (g) => ({ params: { id: g.ids.webhookEndpoint } }),
  'POST /v1/webhook-endpoints/{id}/test': (g) => ({ params: { id: g.ids.webhookEndpoint } }),
  'GET /v1/webhook-endpoints/{id}/deliveries': (g) => ({ params: { id: g.ids.webhookEndpoint }, query: { status: 'pending' } }),
  'GET /v1/events': (g) => ({ query: { program_id: g.ids.program, type: 'partner.created' } }),
  'GET /v1/events/{id}': (g) => ({ params: { id: g.ids.event } }),
  'POST /v1/events/{id}/resend': (g) => ({ params: { id: g.ids.event }, body: { endpoint_id: g.ids.webhookEndpoint } }),
  'POST /v1/payouts/generate': (g) => ({
    body: { program_id: g.ids.program, up_to: '2099-01-01T00:00:00Z', partner_ids: [g.ids.partner] },
  }),
  'GET /v1/payouts': (g) => ({ query: { program_id: g.ids.program, status: 'pending', partner_id: g.ids.partner, expand: 'partner' } }),
  'GET /v1/payouts/export': (g) => ({ query: { program_id: g.ids.program, format: 'csv', status: 'pending', currency: 'USD' } }),
  'GET /v1/payouts/{id}': (g) => ({ params: { id: g.ids.payout }, query: { expand: 'partner' } }),
  'PUT /v1/payouts/{id}': (g) => ({ params: { id: g.ids.payout }, body: { status: 'processing', reference: 'BATCH-1' } }),
  'GET /v1/payouts/{id}/commissions': (g) => ({ params: { id: g.ids.payout }, query: { limit: '5' } }),
  'GET /v1/programs/{id}/balances': (g) => ({ params: { id: g.ids.program }, query: { partner_id: g.ids.partner, expand: 'partner' } }),
  'POST /v1/partners/{id}/embed-tokens': (g) => ({ params: { id: g.ids.partner }, body: { expires_in: 600 } }),
  'GET /v1/programs/{id}/stats': (g) => ({
    params: { id: g.ids.program },
    query: { start: '2026-01-01', end: '2026-01-31', partner_id: g.ids.partner },
  }),
  // Signed when the request is built: any change to the body breaks the signature (400).
  'POST /v1/integrations/stripe/webhook/{program_id}': (g) => {
    const body: Record<string, unknown> = { ...stripeEvent('customer.created', stripeCustomer({})) };
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: jsonBytes(body).toString(), secret: g.stripeSecret });
    return { params: { program_id: g.ids.program }, body, headers: { 'Stripe-Signature': signature } };
  },
};

/**
 * Body fields a valid request may fill with anything: the script's page and referrer are dropped
 * unless URLs (script/README.md#the-endpoints-it-calls).
 */
const LENIENT: Record<string, string[]> = { 'POST /v1/track/click': ['page', 'referrer'] };

/** The kind of record a list returns (for cursors) or a path id names. */
function resourceKind(path: string): Kind {
  // Stripe's webhook names the program it posts for.
  if (path.startsWith('/v1/integrations/stripe/webhook/')) return 'program';
  const segment = path.split('/')[2];
  const kinds: Record<string, Kind> = {
    'api-keys': 'apiKey',
    programs: 'program',
    groups: 'group',
    partners: 'partner',
    links: 'link',
    clicks: 'click',
    'promotion-codes': 'promotionCode',
    customers: 'customer',
    flows: 'flow',
    transactions: 'transaction',
    commissions: 'commission',
    'webhook-endpoints': 'webhookEndpoint',
    events: 'event',
    payouts: 'payout',
    'risk-events': 'riskEvent',
  };
  return kinds[segment];
}

/** The kind of record a list's cursors name: the path's, but a program's balances are a list of its partners. */
function listKind(path: string): Kind {
  return path.endsWith('/balances') ? 'partner' : resourceKind(path);
}

const nonexistent = (kind: Kind) => `${PREFIX[kind]}_${randomBase62(24)}`;

/** Wraps a fast-check failure so that the seed to replay it is the first thing printed. */
async function assertProperty<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns = RUNS): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arb, predicate), { seed: SEED, numRuns });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`Fuzz failure on ${STORAGE} — replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n${message}`, { cause: err });
  }
}

describe('fuzz: malformed requests', () => {
  const { t } = useTestApp();
  let ops: Map<string, Operation>;
  /** The organization the malformed requests are sent as. */
  let a: Graph;
  /** Another organization, whose ids must be unknown to `a`. */
  let b: Graph;

  beforeAll(async () => {
    const doc = await t.request.get('/v1/openapi.json');
    expect(doc.status).toBe(200);
    ops = new Map(operationsOf(doc.body).map((op) => [op.key, op]));
    [a, b] = [await makeGraph(t), await makeGraph(t)];
  });

  const opFor = (key: string) => {
    const op = ops.get(key);
    if (!op) throw new Error(`${key} is in BASELINES but not in the OpenAPI document`);
    return op;
  };
  const partsFor = (op: Operation, g: Graph): RequestParts => ({
    op,
    baseline: BASELINES[op.key](g),
    auth: op.security === 'secret' ? g.org.auth : {},
  });

  /**
   * Sends every generated request and checks it, then checks that the database did not change.
   * With FUZZ_CHECK_EACH=1 the database is compared after each request.
   */
  async function expectAllRefused(arb: fc.Arbitrary<FuzzRequest>, numRuns = RUNS): Promise<void> {
    const sent: FuzzRequest[] = [];
    const before = await fingerprint(t.storage.db);
    await assertProperty(
      arb,
      async (req) => {
        sent.push(req);
        const res = await send(t, req);
        expectClientError(res, req);
        if (CHECK_EACH) expect(changedTables(before, await fingerprint(t.storage.db)), describeRequest(req)).toEqual([]);
      },
      numRuns,
    );
    const changed = changedTables(before, await fingerprint(t.storage.db));
    const listed = sent.slice(0, 200).map(describeRequest).join('\n') + (sent.length > 200 ? `\n… and ${sent.length - 200} more` : '');
    expect(
      changed,
      `A refused request wrote to the database (replay with FUZZ_SEED=${SEED} FUZZ_CHECK_EACH=1 to name it). Requests sent:\n${listed}`,
    ).toEqual([]);
  }

  it('has a baseline for exactly the operations of the OpenAPI document', () => {
    expect([...ops.keys()].sort()).toEqual(Object.keys(BASELINES).sort());
    const isPublic = (path: string) => path.startsWith('/v1/track/') || path.startsWith('/v1/integrations/stripe/webhook/');
    for (const op of ops.values()) expect(op.security, op.key).toBe(isPublic(op.path) ? 'public' : 'secret');
  });

  it('accepts every baseline request, so that a refusal of a changed one is about the change', async () => {
    const c = await makeGraph(t);
    // Deletions last, each record after whatever depends on it.
    const order = [...ops.values()].sort((x, y) => rank(x) - rank(y));
    for (const op of order) {
      const req = build(partsFor(op, c), { what: 'baseline' });
      const res = await send(t, req);
      expect(res.status, `${describeRequest(req)}\n→ ${res.status} ${JSON.stringify(res.body)}`).toBeLessThan(300);
    }
    function rank(op: Operation): number {
      if (op.method !== 'delete') return op.key.endsWith('/refund') ? 1 : 0;
      const deletions = [
        'commission',
        'transaction',
        'customer',
        'promotionCode',
        'link',
        'flow',
        'partner',
        'group',
        'apiKey',
        'webhookEndpoint',
      ];
      return 2 + deletions.indexOf(resourceKind(op.path));
    }
  });

  /** Requests this test once found answered 5xx, or 2xx with a write, each sent on every run whatever the seed. */
  const REGRESSIONS: [string, (g: Graph) => FuzzRequest, string | undefined][] = [
    [
      'a stored timestamp whose UTC year is 0',
      (g) => withBody('POST /v1/transactions', g, { created_at: '0001-01-01T00:30:00+01:00' }),
      'created_at',
    ],
    [
      'a stored timestamp after 8999 (its approval date would be in year 10000)',
      (g) => withBody('POST /v1/transactions', g, { created_at: '9999-12-31T23:59:59.999Z' }),
      'created_at',
    ],
    [
      'a stored timestamp before 1000 (read back as 1950 by the embedded driver)',
      (g) => withBody('POST /v1/customers', g, { lead_at: '0050-06-15T00:00:00Z' }),
      'lead_at',
    ],
    [
      'a list filter whose UTC year is 10000',
      (g) => withQuery('GET /v1/transactions', g, { created_lte: '9999-12-31T23:59:59-23:59' }),
      'created_lte',
    ],
    [
      'Content-Encoding gzip on bytes that are not gzip',
      (g) => build(partsFor(opFor('POST /v1/programs'), g), { what: 'gzip', headers: { 'Content-Encoding': 'gzip' } }),
      undefined,
    ],
    [
      'a truncated br body on the script endpoint',
      (g) =>
        build(partsFor(opFor('POST /v1/track/click'), g), { what: 'br', body: Buffer.from([0x0b]), headers: { 'Content-Encoding': 'br' } }),
      undefined,
    ],
    [
      'JSON nested 40 000 levels deep with an Idempotency-Key',
      (g) =>
        build(partsFor(opFor('POST /v1/programs'), g), {
          what: 'deep',
          body: Buffer.from(`{"name":${'['.repeat(40_000)}${']'.repeat(40_000)}}`),
          headers: { 'Idempotency-Key': `deep-${uniqueSuffix()}` },
        }),
      undefined,
    ],
    [
      'an unknown query parameter on a DELETE',
      (g) => build(partsFor(opFor('DELETE /v1/partners/{id}'), g), { what: 'query', query: [['force', '1']] }),
      'force',
    ],
    [
      'a JSON body on a DELETE',
      (g) => build(partsFor(opFor('DELETE /v1/links/{id}'), g), { what: 'body', body: Buffer.from(`{"id":"${g.ids.link}"}`) }),
      'id',
    ],
    [
      '`__proto__` as a query parameter',
      (g) => build(partsFor(opFor('PUT /v1/programs/{id}'), g), { what: 'query', query: [['__proto__', 'x']] }),
      '__proto__',
    ],
    [
      '`__proto__` as a key of payout_details',
      (g) =>
        build(partsFor(opFor('POST /v1/partners'), g), {
          what: 'proto',
          body: Buffer.from(
            jsonBytes(BASELINES['POST /v1/partners'](g).body)
              .toString()
              .replace('"payout_details":{', '"payout_details":{"__proto__":"x",'),
          ),
        }),
      'payout_details.__proto__',
    ],
    [
      'a byte that is not UTF-8 inside a string',
      (g) =>
        build(partsFor(opFor('POST /v1/groups'), g), {
          what: 'latin1',
          body: Buffer.concat([Buffer.from(`{"program_id":"${g.ids.program}","name":"Caf`), Buffer.from([0xe9]), Buffer.from('"}')]),
        }),
      undefined,
    ],
    [
      'a lone surrogate escape inside a string',
      (g) =>
        build(partsFor(opFor('POST /v1/groups'), g), {
          what: 'surrogate',
          body: Buffer.from(`{"program_id":"${g.ids.program}","name":"Gold","description":"\\ud800"}`),
        }),
      'description',
    ],
  ];

  function withBody(key: string, g: Graph, change: Record<string, unknown>): FuzzRequest {
    const parts = partsFor(opFor(key), g);
    return build(parts, { what: JSON.stringify(change), body: jsonBytes({ ...parts.baseline.body, ...change }) });
  }
  function withQuery(key: string, g: Graph, change: Record<string, string>): FuzzRequest {
    const parts = partsFor(opFor(key), g);
    return build(parts, {
      what: JSON.stringify(change),
      query: Object.entries({ ...parts.baseline.query, ...change }).map(([k, v]) => [enc(k), enc(v)]),
    });
  }

  it.each(REGRESSIONS)('refuses %s with a 4xx and writes nothing', async (_label, make, param) => {
    const before = await fingerprint(t.storage.db);
    const req = make(a);
    const res = await send(t, req);
    expectClientError(res, req);
    if (param !== undefined) expect(res.body.error.param, describeRequest(req)).toBe(param);
    expect(changedTables(before, await fingerprint(t.storage.db))).toEqual([]);
  });

  it('records a same-site click whose cookie_domain is no cookie domain, setting host-only cookies (it answered 500)', async () => {
    const res = await t.request
      .post('/v1/track/click')
      .set({ 'Sec-Fetch-Site': 'same-origin', Origin: 'http://a-' })
      .send({ key: a.ids.publicKey, param: a.link.param, value: a.link.value, cookie_domain: 'a-' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.cookie).toBe(true);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookies).toHaveLength(2);
    for (const cookie of cookies) expect(cookie).not.toMatch(/Domain=/i);
  });

  it('accepts an empty JSON object as the body of an operation that takes none', async () => {
    const res = await t.request.get(`/v1/programs/${a.ids.program}`).set(a.org.auth).set('Content-Type', 'application/json').send('{}');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  describe.each(Object.keys(BASELINES))('%s', (key) => {
    it('answers every malformed request with a 4xx in the error envelope, and writes nothing', { timeout: TIMEOUT }, async () => {
      await expectAllRefused(malformed(opFor(key), a, b));
    });

    it("answers 4xx to another organization's ids and to ids of the wrong kind, and writes nothing", { timeout: TIMEOUT }, async () => {
      const requests = wrongIds(opFor(key), a, b);
      const before = await fingerprint(t.storage.db);
      for (const req of requests) expectClientError(await send(t, req), req);
      expect(changedTables(before, await fingerprint(t.storage.db)), `Requests sent:\n${requests.map(describeRequest).join('\n')}`).toEqual(
        [],
      );
    });
  });

  it('never answers 5xx to boundary values that may be valid (writes allowed)', { timeout: TIMEOUT * 4 }, async () => {
    const withBody = [...ops.values()].filter((op) => op.body);
    const withQuery = [...ops.values()].filter((op) => op.query.size);
    const script = [...ops.values()].filter((op) => op.path.startsWith('/v1/track/'));
    const arb = fc.oneof(
      { arbitrary: fc.constantFrom(...withBody).chain((op) => edgeBody(op, a)), weight: 6 },
      { arbitrary: fc.constantFrom(...withQuery).chain((op) => edgeQuery(op, a)), weight: 3 },
      { arbitrary: fc.constantFrom(...script).chain((op) => sameSiteCookies(op, a)), weight: 1 },
    );
    await assertProperty(
      arb,
      async (req) => {
        const res = await send(t, req);
        const context = `${describeRequest(req)}\n→ ${res.status} ${JSON.stringify(res.body)?.slice(0, 500)}`;
        expect(res.status, context).toBeLessThan(500);
        if (res.status >= 400) expectErrorEnvelope(res, context);
        // A file (the payout export) is no envelope.
        else if (res.headers['content-type']?.startsWith('text/csv'))
          expect(res.headers['content-disposition'], context).toMatch(/^attachment/);
        else {
          expect(res.body.success, context).toBe(true);
          // A stored timestamp reads back as the moment that was sent.
          for (const [field, sent] of Object.entries(req.echo ?? {})) {
            const answered = (Array.isArray(res.body.data) ? res.body.data[0] : res.body.data)?.[field];
            expect(
              Math.abs(Date.parse(answered) - Date.parse(sent)),
              `${context}\n${field}: sent ${sent}, answered ${answered}`,
            ).toBeLessThanOrEqual(1);
          }
        }
      },
      RUNS * 8,
    );
  });

  // -------------------------------------------------------------------------------------------
  // Generators of malformed requests

  function malformed(op: Operation, g: Graph, other: Graph): fc.Arbitrary<FuzzRequest> {
    const parts = partsFor(op, g);
    const base = parts.baseline;
    const families: fc.WeightedArbitrary<FuzzRequest>[] = [];
    const validBytes = jsonBytes(base.body ?? { note: 'x' });

    if (op.body) {
      families.push({ arbitrary: bodyFields(op, parts), weight: 6 });
      families.push({ arbitrary: unknownBodyKeys(op, parts), weight: 2 });
      if (op.body.required?.length)
        families.push({ arbitrary: fc.constant(build(parts, { what: 'empty body', body: Buffer.alloc(0) })), weight: 1 });
    } else {
      // A body where the operation takes none: anything but an empty object is refused.
      const bodyWhereNone = fc
        .tuple(fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), fc.string({ maxLength: 12 })), fc.jsonValue({ maxDepth: 2 }))
        .map(([k, v]) => {
          const body = {} as Record<string, unknown>;
          defineKey(body, k, v);
          return build(parts, { what: `body ${JSON.stringify(k).slice(0, 40)} on ${op.method.toUpperCase()}`, body: jsonBytes(body) });
        });
      families.push({ arbitrary: bodyWhereNone, weight: 3 });
    }
    families.push({ arbitrary: brokenJson(validBytes).map((x) => build(parts, { what: x.what, body: x.body })), weight: 3 });
    const contentTypes = op.security === 'public' ? WRONG_CONTENT_TYPES.filter((type) => type !== 'text/plain') : WRONG_CONTENT_TYPES;
    families.push({
      arbitrary: fc
        .constantFrom<string | null>(...contentTypes, null)
        .map((type) => build(parts, { what: `Content-Type ${type}`, body: validBytes, contentType: type })),
      weight: 2,
    });
    families.push({
      arbitrary: badEncoding(validBytes).map((x) =>
        build(parts, { what: x.what, body: x.body, headers: { 'Content-Encoding': x.encoding } }),
      ),
      weight: 1,
    });
    families.push({
      arbitrary: fc
        .integer({ min: 100 * 1024 + 1, max: 130 * 1024 })
        .map((n) => build(parts, { what: `a ${n}-character body`, body: jsonBytes({ ...base.body, pad: 'x'.repeat(n) }) })),
      weight: 1,
    });
    families.push({ arbitrary: badQuery(op, parts, g, other), weight: 4 });
    if (op.pathParams.length) families.push({ arbitrary: badPath(op, parts), weight: 2 });
    families.push({ arbitrary: badCredentials(op, parts, g), weight: 1 });
    const request = fc.oneof(...families);
    if (op.method === 'get' || op.security !== 'secret') return request;
    // Some carry an Idempotency-Key, which runs the request inside a SQL transaction that keeps
    // the answer: a refusal must look the same there. An empty or over-long key is refused too.
    const key = fc.option(
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 40, unit: 'binary-ascii' }).filter((k) => /^[\x21-\x7e]+$/.test(k)),
        fc.constantFrom('', 'k'.repeat(256)),
      ),
      { freq: 4 },
    );
    return fc
      .tuple(request, key)
      .map(([req, k]) =>
        k === null
          ? req
          : { ...req, what: `${req.what} (Idempotency-Key ${k.slice(0, 20)})`, headers: { ...req.headers, 'Idempotency-Key': k } },
      );
  }

  /** One to three fields of the baseline body, each made invalid. */
  function bodyFields(op: Operation, parts: RequestParts): fc.Arbitrary<FuzzRequest> {
    const base = parts.baseline.body ?? {};
    const lenient = new Set(LENIENT[op.key] ?? []);
    const slots = bodySlots(op.body!, base)
      .map((slot) => ({ slot, arb: invalidValue(slot, { lenient: lenient.has(pathText(slot.path)) }) }))
      .filter((s): s is { slot: FieldSlot; arb: fc.Arbitrary<{ what: string; value: unknown }> } => s.arb !== null);
    const change = fc.constantFrom(...slots).chain(({ slot, arb }) => arb.map((v) => ({ path: slot.path, ...v })));
    return fc.array(change, { minLength: 1, maxLength: 3 }).map((changes) => {
      const body = cloneJson(base);
      const applied = changes.filter((c) => setAt(body, c.path, c.value));
      return build(parts, { what: applied.map((c) => `${pathText(c.path)}: ${c.what}`).join('; '), body: jsonBytes(body) });
    });
  }

  /** A key the schema does not know, at the top or inside a nested object. */
  function unknownBodyKeys(op: Operation, parts: RequestParts): fc.Arbitrary<FuzzRequest> {
    const base = parts.baseline.body ?? {};
    const objects = strictObjects(op.body!, base);
    const name = fc.oneof(
      fc.constantFrom(...UNKNOWN_KEYS, ...LONE_SURROGATES.map((s) => `key${s}`)),
      fc.string({ maxLength: 16, unit: 'binary' }),
    );
    const records = recordObjects(op.body!, base);
    // A record (payout_details) takes keys of its own, but never these.
    const oddRecordKeys = records.length
      ? [
          fc
            .tuple(
              fc.constantFrom(...records),
              fc.constantFrom('__proto__', 'constructor', 'e\u0000mail', `email${LONE_SURROGATES[0]}`, 'k'.repeat(65), ''),
              fc.jsonValue({ maxDepth: 1 }),
            )
            .map(([path, k, value]) => {
              const body = cloneJson(base);
              defineKey(getAt(body, path) as Record<string, unknown>, k, typeof value === 'string' ? value : 'x');
              return build(parts, { what: `key ${JSON.stringify(k).slice(0, 30)} in ${pathText(path)}`, body: jsonBytes(body) });
            }),
        ]
      : [];
    const unknown = fc
      .tuple(fc.constantFrom(...objects), name, fc.jsonValue({ maxDepth: 2 }), fc.boolean())
      .filter(([o, k]) => !o.known.has(k))
      .map(([o, k, value, duplicate]) => {
        const body = cloneJson(base);
        defineKey(getAt(body, o.path) as Record<string, unknown>, k, value);
        let bytes = jsonBytes(body);
        // Also a key given twice: JSON.parse keeps the last, here a wrong type.
        if (duplicate && o.path.length === 0) {
          const known = [...o.known][0];
          bytes = Buffer.concat([
            bytes.subarray(0, bytes.length - 1),
            Buffer.from(`${bytes.length > 2 ? ',' : ''}${JSON.stringify(known)}:{"$":[]}}`),
          ]);
        }
        return build(parts, {
          what: `unknown key ${JSON.stringify(k).slice(0, 40)} in ${pathText(o.path) || 'the body'}${duplicate ? ' (and a duplicate key)' : ''}`,
          body: bytes,
        });
      });
    return fc.oneof(unknown, ...oddRecordKeys);
  }

  /** Unknown, repeated, bracketed and malformed query parameters, and bad cursors. */
  function badQuery(op: Operation, parts: RequestParts, g: Graph, other: Graph): fc.Arbitrary<FuzzRequest> {
    const known = new Set(op.query.keys());
    const basePairs = (): [string, string][] => Object.entries(parts.baseline.query ?? {}).map(([k, v]) => [enc(k), enc(v)]);
    const withPair = (pairs: [string, string][], at: number, pair: [string, string]) => {
      const out = [...pairs];
      out.splice(at % (out.length + 1), 0, pair);
      return out;
    };
    const families: fc.Arbitrary<FuzzRequest>[] = [];

    const unknownName = fc
      .oneof(
        fc.constantFrom(...UNKNOWN_KEYS),
        fc.string({ minLength: 1, maxLength: 16 }),
        fc.tuple(fc.constantFrom(...(known.size ? known : ['limit'])), fc.string({ maxLength: 6 })).map(([k, s]) => `${k}[${s}]`),
      )
      .filter((name) => !known.has(name.replace(/\[\]$/, '')));
    families.push(
      fc.tuple(unknownName, fc.string({ maxLength: 10 }), fc.nat(), fc.boolean()).map(([name, value, at, rawBrackets]) => {
        // `a[b]=c` is sent both with raw and with encoded brackets.
        const encodedName = rawBrackets ? enc(name).replace(/%5B/g, '[').replace(/%5D/g, ']') : enc(name);
        return build(parts, {
          what: `unknown query parameter ${JSON.stringify(name).slice(0, 40)}`,
          query: withPair(basePairs(), at, [encodedName, enc(value)]),
        });
      }),
    );

    const scalars = [...op.query.entries()].filter(([, p]) => !allowedTypes(p.schema).has('array'));
    if (scalars.length) {
      families.push(
        fc.tuple(fc.constantFrom(...scalars), fc.string({ maxLength: 8 }), fc.boolean()).map(([[name], value, bracket]) => {
          const first = parts.baseline.query?.[name] ?? value;
          const pairs = basePairs().filter(([k]) => k !== enc(name));
          const repeated: [string, string][] = bracket
            ? [[`${enc(name)}[]`, enc(first)]]
            : [
                [enc(name), enc(first)],
                [enc(name), enc(value)],
              ];
          return build(parts, {
            what: bracket ? `${name}[] for a single-valued parameter` : `${name} given twice`,
            query: [...pairs, ...repeated],
          });
        }),
      );
      const invalid = scalars.flatMap(([name, p]) => {
        const base = parts.baseline.query?.[name] ?? '';
        return [
          ...invalidString(p.schema, base),
          ...(p.schema.type === 'string'
            ? [
                fc.nat().map((at) => ({
                  what: 'NUL character',
                  value: `${base.slice(0, at % (base.length + 1))}\u0000${base.slice(at % (base.length + 1))}`,
                })),
              ]
            : []),
        ].map((arb) => arb.map((v) => ({ name, ...v })));
      });
      if (invalid.length) {
        families.push(
          fc.oneof(...invalid).map(({ name, what, value }) => {
            const pairs = basePairs().filter(([k]) => k !== enc(name));
            return build(parts, { what: `${name}: ${what}`, query: [...pairs, [enc(name), enc(value)]] });
          }),
        );
      }
    }

    const lists = ['expand', 'include'].filter((n) => known.has(n));
    if (lists.length) {
      families.push(
        fc
          .tuple(
            fc.constantFrom(...lists),
            fc.array(
              fc.string({ maxLength: 8 }).map((s) => `${s}!`),
              { minLength: 1, maxLength: 3 },
            ),
            fc.boolean(),
          )
          .map(([name, values, bracket]) => {
            const pairs = basePairs().filter(([k]) => k !== enc(name));
            return build(parts, {
              what: `${name} with unknown values`,
              query: [...pairs, ...values.map((v) => [bracket ? `${name}[]` : name, enc(v)] as [string, string])],
            });
          }),
      );
    }

    if (known.has('starting_after')) {
      const kind = listKind(op.path);
      const cursors = [
        nonexistent(kind),
        other.ids[kind],
        ...Object.entries(g.ids)
          .filter(([k]) => k !== kind)
          .map(([, id]) => id),
        'x'.repeat(65),
        '',
      ];
      families.push(
        fc
          .tuple(fc.constantFrom('starting_after', 'ending_before'), fc.constantFrom(...cursors))
          .map(([name, cursor]) => build(parts, { what: `${name}=${cursor.slice(0, 30)}`, query: [...basePairs(), [name, enc(cursor)]] })),
      );
      families.push(
        fc.constant(
          build(parts, {
            what: 'starting_after and ending_before',
            query: [...basePairs(), ['starting_after', enc(g.ids[kind])], ['ending_before', enc(g.ids[kind])]],
          }),
        ),
      );
    }
    return fc.oneof(...families);
  }

  /** Path ids that cannot be decoded, hold NUL, are huge, or are no id at all. */
  function badPath(op: Operation, parts: RequestParts): fc.Arbitrary<FuzzRequest> {
    const kind = resourceKind(op.path);
    return fc.oneof(
      fc
        .constantFrom(
          '%',
          '%2',
          '%zz',
          '%G1',
          'abc%',
          '%FF',
          '%C0%80',
          '%ED%A0%80',
          '%F4%90%80%80',
          '%E0%A4%A',
          '%u0041',
          '%00',
          'a%00b',
          `${PREFIX[kind]}_%00`,
        )
        .map((segment) => build(parts, { what: `path id ${segment}`, segment })),
      fc
        .integer({ min: 65, max: 7000 })
        .map((n) => build(parts, { what: `a ${n}-character path id`, segment: `${PREFIX[kind]}_${'x'.repeat(n)}` })),
      fc
        .string({ minLength: 1, maxLength: 20, unit: 'grapheme' })
        // Dot segments are resolved by the client's URL parser: `/v1/programs/.` would be the list.
        .filter((s) => s !== '.' && s !== '..')
        .map((s) => build(parts, { what: `path id ${JSON.stringify(s)}`, segment: enc(s) })),
    );
  }

  /** Missing or wrong credentials: a secret route's Authorization header, or the script's public key. */
  function badCredentials(op: Operation, parts: RequestParts, g: Graph): fc.Arbitrary<FuzzRequest> {
    if (op.security === 'secret') {
      return fc
        .oneof(
          fc.constantFrom(
            '',
            'Bearer',
            'Bearer ',
            'Basic dXNlcjpwYXNz',
            `Bearer ${g.ids.publicKey}`,
            'Bearer sk_',
            `Bearer sk_${'a'.repeat(101)}`,
            `Token ${g.org.api_key}`,
          ),
          fc
            .string({ maxLength: 40, unit: 'binary-ascii' })
            .filter((s) => /^[\x20-\x7e]*$/.test(s))
            .map((s) => `Bearer sk_${s}`),
        )
        .map((header) => {
          const req = build(parts, { what: `Authorization ${JSON.stringify(header).slice(0, 40)}` });
          if (header === '') delete req.headers.Authorization;
          else req.headers.Authorization = header;
          return req;
        });
    }
    if (op.path.startsWith('/v1/integrations/stripe/webhook/')) {
      // Stripe's credential is the signature of the body with the program's secret.
      const payload = jsonBytes(parts.baseline.body).toString();
      const signed = (secret: string, timestamp?: number) => Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
      return fc
        .oneof(
          fc.constantFrom(
            '',
            't=1,v1=00',
            'v1=abc',
            signed(newWebhookSecret()),
            signed(g.stripeSecret, Math.floor(Date.now() / 1000) - 3600),
            signed(g.stripeSecret).replace(/v1=\w+/, 'v0=0'),
          ),
          fc.string({ maxLength: 60, unit: 'binary-ascii' }).filter((x) => /^[\x20-\x7e]*$/.test(x)),
        )
        .map((header) => {
          const req = build(parts, { what: `Stripe-Signature ${JSON.stringify(header).slice(0, 40)}` });
          if (header === '') delete req.headers['Stripe-Signature'];
          else req.headers['Stripe-Signature'] = header;
          return req;
        });
    }
    return fc
      .constantFrom<unknown>(
        undefined,
        null,
        0,
        {},
        [],
        '',
        'pk_',
        `pk_${randomBase62(24)}`,
        g.org.api_key,
        g.ids.publicKey.toUpperCase(),
        ` ${g.ids.publicKey}`,
      )
      .map((key) => {
        const body = cloneJson(parts.baseline.body ?? {});
        if (key === undefined) delete body.key;
        else body.key = key;
        return build(parts, { what: `key ${JSON.stringify(key)}`, body: jsonBytes(body) });
      });
  }

  /**
   * The baseline with one id replaced by another organization's id of the same kind, by one of
   * this organization's ids of every other kind, and by a well-formed id that does not exist.
   */
  function wrongIds(op: Operation, g: Graph, other: Graph): FuzzRequest[] {
    const parts = partsFor(op, g);
    const base = parts.baseline;
    const substitutes = (kind: Kind): { what: string; id: string }[] => [
      { what: `another organization's ${kind}`, id: other.ids[kind] },
      { what: `a ${kind} id that does not exist`, id: nonexistent(kind) },
      ...Object.entries(g.ids)
        .filter(([k]) => k !== kind)
        .map(([k, id]) => ({ what: `a ${k} id for a ${kind}`, id })),
    ];
    const out: FuzzRequest[] = [];
    for (const [name, id] of Object.entries(base.params ?? {})) {
      const kind = resourceKind(op.path);
      expect(g.kindOf.get(id), `${op.key} path ${name}`).toBe(kind);
      for (const s of substitutes(kind))
        out.push(build({ ...parts, baseline: { ...base, params: { ...base.params, [name]: s.id } } }, { what: `path ${name}: ${s.what}` }));
    }
    for (const [name, value] of Object.entries(base.query ?? {})) {
      const kind = g.kindOf.get(value);
      if (!kind) continue;
      for (const s of substitutes(kind))
        out.push(build({ ...parts, baseline: { ...base, query: { ...base.query, [name]: s.id } } }, { what: `query ${name}: ${s.what}` }));
    }
    if (op.query.has('starting_after')) {
      const kind = listKind(op.path);
      for (const name of ['starting_after', 'ending_before']) {
        for (const s of substitutes(kind))
          out.push(build({ ...parts, baseline: { ...base, query: { ...base.query, [name]: s.id } } }, { what: `${name}: ${s.what}` }));
      }
    }
    for (const slot of bodySlots(op.body ?? {}, base.body)) {
      const kind = typeof slot.current === 'string' ? g.kindOf.get(slot.current) : undefined;
      if (!kind) continue;
      for (const s of substitutes(kind)) {
        const body = cloneJson(base.body!);
        setAt(body, slot.path, s.id);
        out.push(build({ ...parts, baseline: { ...base, body } }, { what: `${pathText(slot.path)}: ${s.what}` }));
      }
    }
    // Only creating an API key or a program names no record.
    if (!['POST /v1/api-keys', 'POST /v1/programs'].includes(op.key)) expect(out.length, `${op.key} has an id to swap`).toBeGreaterThan(0);
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Boundary values: maybe valid, never a 5xx

  function edgeBody(op: Operation, g: Graph): fc.Arbitrary<FuzzRequest> {
    const parts = partsFor(op, g);
    const base = parts.baseline.body ?? {};
    const slots = bodySlots(op.body!, base);
    const change = fc
      .constantFrom(...slots)
      .chain((slot) =>
        (slot.path[0] === 'cookie_domain'
          ? fc.oneof(fc.constantFrom(...DOMAIN_EDGES), edgeValue(slot.schema, slot.current))
          : edgeValue(slot.schema, slot.current)
        ).map((value) => ({ path: slot.path, value })),
      );
    return fc.tuple(fc.array(change, { minLength: 1, maxLength: 3 }), edgeHeaders(op)).map(([changes, headers]) => {
      const body = cloneJson(partsFor(op, g).baseline.body ?? {});
      for (const c of changes) setAt(body, c.path, c.value);
      // Same-site mode sets cookies for the Origin's host, with the body's cookie_domain when it is that host.
      if (headers['Sec-Fetch-Site'] && headers.Origin === 'cookie_domain') {
        // A header carries only printable ASCII here (the client refuses the rest).
        const domain =
          typeof body.cookie_domain === 'string' && /^[\x21-\x7e]+$/.test(body.cookie_domain) ? body.cookie_domain : 'acme.example';
        headers.Origin = `http://${domain}`;
      }
      const req = build(parts, { what: `edge values ${changes.map((c) => pathText(c.path)).join(', ')}`, body: jsonBytes(body), headers });
      const timestamps = changes.filter(
        (c) => c.path.length === 1 && typeof c.value === 'string' && op.body!.properties?.[c.path[0]]?.format === 'date-time',
      );
      return { ...req, echo: Object.fromEntries(timestamps.map((c) => [c.path[0], body[c.path[0]] as string])) };
    });
  }

  /** The script's endpoints called same-origin from the host a cookie_domain names: the response sets cookies for it. */
  function sameSiteCookies(op: Operation, g: Graph): fc.Arbitrary<FuzzRequest> {
    return fc.constantFrom(...DOMAIN_EDGES).map((domain) => {
      const parts = partsFor(op, g);
      const body = { ...parts.baseline.body, cookie_domain: domain };
      return build(parts, {
        what: `same-site with cookie_domain ${domain.slice(0, 30)}`,
        body: jsonBytes(body),
        headers: { 'Sec-Fetch-Site': 'same-origin', Origin: `http://${domain}` },
      });
    });
  }

  /** Headers a service reads: the User-Agent (browser, device, bots), and on the script's endpoints same-site mode. */
  function edgeHeaders(op: Operation): fc.Arbitrary<Record<string, string>> {
    const userAgent = fc.option(
      fc.oneof(
        fc.constantFrom(
          '',
          ' ',
          'Googlebot/2.1 (+http://www.google.com/bot.html)',
          'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
          'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36',
          'x'.repeat(8000),
          '\u00e9\u00ff',
        ),
        fc.string({ maxLength: 200, unit: 'binary-ascii' }).filter((ua) => /^[\x20-\x7e]*$/.test(ua)),
      ),
    );
    const sameSite = op.path.startsWith('/v1/track/')
      ? fc.option(
          fc.constantFrom('cookie_domain', 'null', 'https://acme.example', 'http://[::1]:3000', 'not a url', 'http://..', 'http://-'),
        )
      : fc.constant(null);
    return fc.tuple(userAgent, sameSite).map(([ua, origin]) => ({
      ...(ua === null ? {} : { 'User-Agent': ua }),
      ...(origin === null ? {} : { 'Sec-Fetch-Site': 'same-origin', Origin: origin }),
    }));
  }

  function edgeQuery(op: Operation, g: Graph): fc.Arbitrary<FuzzRequest> {
    const parts = partsFor(op, g);
    const params = [...op.query.entries()];
    return fc
      .array(
        fc.constantFrom(...params).chain(([name, p]) =>
          edgeValue(p.schema, parts.baseline.query?.[name])
            .filter((v) => typeof v === 'string')
            .map((value) => [name, value as string] as const),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((changes) => {
        const query = { ...parts.baseline.query };
        for (const [name, value] of changes) query[name] = value;
        return build(parts, {
          what: `edge query ${changes.map(([n]) => n).join(', ')}`,
          query: Object.entries(query).map(([k, v]) => [enc(k), enc(v)]),
        });
      });
  }
});

/** Cookie domains the body's pattern allows, valid as a cookie's Domain or not. */
const DOMAIN_EDGES = [
  '..',
  '.',
  '-',
  'a-',
  '-a',
  'a..b',
  'x.-y',
  '.acme.example',
  'acme.example',
  'ACME.EXAMPLE',
  'localhost',
  '127.0.0.1',
  `${'a'.repeat(64)}.example`,
  'a'.repeat(253),
];

/** Values at or near the edges of what a schema takes. */
function edgeValue(schema: JsonSchema, current: unknown): fc.Arbitrary<unknown> {
  const types = allowedTypes(schema);
  const arbs: fc.Arbitrary<unknown>[] = [];
  if (types.has('string')) {
    const base = typeof current === 'string' ? current : 'x';
    const max = schema.maxLength ?? 300;
    arbs.push(
      fc.constantFrom(
        'x'.repeat(max),
        '😀'.repeat(Math.floor(max / 2)),
        ` ${base} `,
        base.toUpperCase(),
        base.normalize('NFD'),
        'é',
        'e\u0301',
        '\u202etxet',
        '\u2028',
        '\ufeff',
        '0',
        'null',
        "'; drop table programs; --",
        '%',
        '_',
        '\\',
        '<script>',
        'a'.repeat(max - 1) + '😀'.slice(0, 1),
      ),
      fc.string({ unit: 'grapheme', maxLength: Math.min(max, 40) }),
    );
    if (schema.format === 'date-time') {
      arbs.push(
        fc.constantFrom(
          '0001-01-01T00:00:00Z',
          '0001-01-01T00:00:00.000+00:00',
          '9999-12-31T23:59:59.999Z',
          '9999-12-31T23:59:59+01:00',
          '1970-01-01T00:00:00Z',
          '1969-12-31T23:59:59.999Z',
          '2020-02-29T23:59:59+14:00',
          '2020-01-01T00:00:00.123456789Z',
          '2038-01-19T03:14:08Z',
          '1000-01-01T00:00:00Z',
          '8999-12-31T23:59:59.999+00:00',
          ...BAD_TIMESTAMPS,
          ...UNSTORABLE_TIMESTAMPS,
        ),
      );
    }
    if (schema.enum) arbs.push(fc.constantFrom(...schema.enum));
    if (schema.pattern === '^\\d+$') arbs.push(fc.constantFrom('1', '100', '0', '101', '007', '99999999999999999999'));
    // Calendar days (a period's start and end): the range's ends, days that do not exist, leap days.
    if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$') {
      arbs.push(
        fc.constantFrom(
          '1000-01-01',
          '0999-12-31',
          '8999-12-31',
          '9000-01-01',
          '0000-00-00',
          '9999-99-99',
          '2024-02-29',
          '2023-02-29',
          '2026-02-30',
          '2026-04-31',
          '1970-01-01',
          '1969-12-31',
          '2025-12-31',
          '2026-12-31',
        ),
      );
    }
  }
  if (types.has('number')) {
    const min = schema.minimum ?? -1e308;
    const max = schema.maximum ?? 1e308;
    arbs.push(
      fc
        .constantFrom(min, max, -0, 0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 1e12, 0.01, 99.99, 12.345, 5e-324, 1e308)
        .map((n) => (Object.is(n, -0) ? new RawJson('-0') : n)),
      fc.double({ min: Math.max(min, -1e15), max: Math.min(max, 1e15), noNaN: true }),
      fc.integer(),
    );
  }
  if (types.has('boolean')) arbs.push(fc.boolean());
  if (types.has('null')) arbs.push(fc.constant(null));
  if (types.has('array') && schema.items) arbs.push(fc.array(edgeValue(schema.items, undefined), { maxLength: 4 }));
  if (types.has('object') && !schema.properties)
    arbs.push(fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }));
  if (current !== undefined && current !== null && typeof current === 'object') arbs.push(fc.constant(current));
  return arbs.length ? fc.oneof(...arbs) : fc.constant(current);
}
