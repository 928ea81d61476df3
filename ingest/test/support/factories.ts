import { expect } from 'vitest';
import { randomBase62 } from '../../src/ids.js';
import { COMMISSION_FULL_FIELDS, PARTNER_STATS_FIELDS } from './fields.js';
import type { TestApp } from './harness.js';

/**
 * Test factories: records made through the public API (so they go through the same validation
 * and side effects as a client's), each returning the object the API answered with.
 */

/** An organization from `TestApp.newOrganization`: ids, keys and the `Authorization` header. */
export type TestOrg = Awaited<ReturnType<TestApp['newOrganization']>>;

// Loosely typed API objects: the tests assert on their exact shape.
export type ApiObject = Record<string, any>;

/** A short random suffix for names and e-mails that must not collide within a test file. */
export function uniqueSuffix(): string {
  return randomBase62(10).toLowerCase();
}

/** A fresh, valid, lower-case e-mail address. */
export function uniqueEmail(prefix = 'partner'): string {
  return `${prefix}-${uniqueSuffix()}@example.com`;
}

/** Makes a new organization with its program, default group and secret key. */
export function createOrganization(t: TestApp, names: { org?: string; program?: string } = {}): Promise<TestOrg> {
  const suffix = uniqueSuffix();
  return t.newOrganization({ org: names.org ?? `Org ${suffix}`, program: names.program ?? `Program ${suffix}` });
}

/** POST /v1/programs in the organization; returns the created program. */
export async function createProgram(t: TestApp, org: TestOrg, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/programs')
    .set(org.auth)
    .send({ name: `Program ${uniqueSuffix()}`, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** POST /v1/groups; the program defaults to the organization's first program. */
export async function createGroup(t: TestApp, org: TestOrg, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/groups')
    .set(org.auth)
    .send({ program_id: org.program_id, name: `Group ${uniqueSuffix()}`, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** A valid partner create body for the organization's first program, with a fresh e-mail. */
export function partnerInput(org: TestOrg, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { first_name: 'Pat', last_name: 'Partner', email: uniqueEmail(), program_id: org.program_id, ...overrides };
}

/** POST /v1/partners (expects 201); returns the created partner. */
export async function createPartner(t: TestApp, org: TestOrg, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
  const res = await t.request.post('/v1/partners').set(org.auth).send(partnerInput(org, overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** GET /v1/partners/:id as the organization (expects 200); returns the partner. */
export async function getPartner(t: TestApp, org: TestOrg, id: string): Promise<ApiObject> {
  const res = await t.request.get(`/v1/partners/${id}`).set(org.auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** A link value that no other test in the file uses (URL-safe, well under 64 characters). */
export function uniqueLinkValue(prefix = 'v'): string {
  return `${prefix}-${uniqueSuffix()}`;
}

/** POST /v1/links for the partner (expects 201); param defaults to `ref`, value to a fresh one. */
export async function createLink(
  t: TestApp,
  org: TestOrg,
  partner: ApiObject,
  overrides: Record<string, unknown> = {},
): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/links')
    .set(org.auth)
    .send({ param: 'ref', value: uniqueLinkValue(), partner_id: partner.id, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** POST /v1/clicks with any body and extra headers; returns the raw response. */
export function postClick(t: TestApp, org: TestOrg, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.request.post('/v1/clicks').set(org.auth).set(headers).send(body);
}

/** POST /v1/clicks (expects 201); returns the recorded click. */
export async function createClick(
  t: TestApp,
  org: TestOrg,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ApiObject> {
  const res = await postClick(t, org, body, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** A click of the partner through the API: a fresh link, then POST /v1/clicks {param, value}. */
export async function clickOf(t: TestApp, org: TestOrg, partner: ApiObject): Promise<ApiObject> {
  const link = await createLink(t, org, partner);
  const click = await createClick(t, org, { param: link.param, value: link.value });
  expect(click.partner_id).toBe(partner.id);
  return click;
}

/** A promotion code text no other test uses. */
export function uniqueCode(prefix = 'PC'): string {
  return `${prefix}${uniqueSuffix().toUpperCase()}`;
}

/** POST /v1/promotion-codes in the org's program (expects 201); a 10 % program-wide code unless overridden. */
export async function createPromotionCode(t: TestApp, org: TestOrg, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/promotion-codes')
    .set(org.auth)
    .send({ program_id: org.program_id, code: uniqueCode(), type: 'percentage', value: 10, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** POST /v1/customers (expects 201) for the partner, with a fresh e-mail; returns the customer. */
export async function createCustomer(
  t: TestApp,
  org: TestOrg,
  partner: ApiObject,
  overrides: Record<string, unknown> = {},
): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/customers')
    .set(org.auth)
    .send({ email: uniqueEmail('cust'), partner_id: partner.id, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** POST /v1/flows (expects 201) in the org's first program; a 10 % immediate payment flow unless overridden. */
export async function createFlow(t: TestApp, org: TestOrg, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/flows')
    .set(org.auth)
    .send({
      program_id: org.program_id,
      name: `Flow ${uniqueSuffix()}`,
      reward: { type: 'percentage', value: 10 },
      approval: { type: 'immediate' },
      ...overrides,
    });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** POST /v1/transactions (expects 201) for the customer, with a fresh charge id; returns the transaction. */
export async function createTransaction(
  t: TestApp,
  org: TestOrg,
  customer: ApiObject,
  overrides: Record<string, unknown> = {},
): Promise<ApiObject> {
  const res = await t.request
    .post('/v1/transactions')
    .set(org.auth)
    .send({ amount: 10_000, customer_id: customer.id, charge_id: `ch_${uniqueSuffix()}`, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data[0];
}

/** GET /v1/commissions?program_id&transaction_id, oldest first; the short field set. */
export async function commissionsOf(t: TestApp, org: TestOrg, transaction: ApiObject): Promise<ApiObject[]> {
  const res = await t.request
    .get('/v1/commissions')
    .set(org.auth)
    .query({ program_id: transaction.program_id, transaction_id: transaction.id, order: 'asc', limit: 100 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** GET /v1/flows?program_id (expects 200): the program's only flow, its default one, as a new program has. */
export async function defaultFlowOf(t: TestApp, org: TestOrg, program: ApiObject): Promise<ApiObject> {
  const res = await t.request.get('/v1/flows').set(org.auth).query({ program_id: program.id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toHaveLength(1);
  expect(res.body.data[0].default).toBe(true);
  return res.body.data[0];
}

/**
 * POST /v1/programs, then PUT its default flow `active: false`: a program where only the flows a
 * test makes pay. Returns the created program.
 */
export async function quietProgram(t: TestApp, org: TestOrg, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
  const program = await createProgram(t, org, overrides);
  const flow = await defaultFlowOf(t, org, program);
  const off = await t.request.put(`/v1/flows/${flow.id}`).set(org.auth).send({ active: false });
  expect(off.status, JSON.stringify(off.body)).toBe(200);
  return program;
}

/** The partner's stats: GET /v1/partners/:id?include[]=stats (expects 200) → data.stats, exactly the four totals. */
export async function partnerStats(t: TestApp, org: TestOrg, partnerId: string): Promise<ApiObject> {
  const res = await t.request.get(`/v1/partners/${partnerId}`).set(org.auth).query({ 'include[]': 'stats' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body.data.stats).sort()).toEqual([...PARTNER_STATS_FIELDS].sort());
  return res.body.data.stats;
}

/** The customer's stats: GET /v1/customers/:id?include[]=stats (expects 200) → data.stats. */
export async function customerStats(t: TestApp, org: TestOrg, customerId: string): Promise<ApiObject> {
  const res = await t.request.get(`/v1/customers/${customerId}`).set(org.auth).query({ 'include[]': 'stats' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.stats;
}

/**
 * The full commission object (flow_id, approval_type … only show there): PUT /v1/commissions/:id
 * with an empty body (expects 200), which changes nothing but updated_at; checks the full field set.
 */
export async function fullCommission(t: TestApp, org: TestOrg, id: string): Promise<ApiObject> {
  const res = await t.request.put(`/v1/commissions/${id}`).set(org.auth).send({});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body.data[0]).sort()).toEqual([...COMMISSION_FULL_FIELDS].sort());
  return res.body.data[0];
}
