import { sql } from 'kysely';
import type { Test } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiObject,
  createCustomer,
  createLink,
  createPartner,
  createTransaction,
  uniqueEmail,
  uniqueLinkValue,
} from '../support/factories.js';
import {
  CLICK_FIELDS,
  COMMISSION_FULL_FIELDS,
  COMMISSION_INCLUDED_FIELDS,
  COMMISSION_SHORT_FIELDS,
  CUSTOMER_FIELDS,
  CUSTOMER_STATS_FIELDS,
  CUSTOMER_WRITE_FIELDS,
  EXPANDED_CUSTOMER_FIELDS,
  EXPANDED_GROUP_FIELDS,
  EXPANDED_PARTNER_FIELDS,
  EXPANDED_PROGRAM_FIELDS,
  EXPANDED_TRANSACTION_FIELDS,
  LINK_FIELDS,
  PARTNER_FIELDS,
  PARTNER_LIST_PROGRAM_FIELDS,
  PARTNER_STATS_FIELDS,
  TRANSACTION_FIELDS,
} from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The field sets of every resource of the Partnership Program API
 * (README.md#the-api-specification), pinned (ingest/docs/api.md#field-sets): each operation
 * (create, list, retrieve, update) of partners, links, clicks, customers, transactions and
 * commissions, alone and with each of its expansions and includes, answers exactly the keys of the
 * lists in `support/fields.ts`, and each expanded or included object exactly its own list. Before
 * anything is made, every table behind those objects gets a column no serializer knows: an answer
 * that spreads a row, and so would show the next column a migration adds, fails here.
 */

/** The tables behind the Partnership Program API's objects and their expansions. */
const TABLES = ['programs', 'groups', 'partners', 'links', 'clicks', 'customers', 'transactions', 'commissions'] as const;
const PROBE = 'leak_probe';

type Keys = readonly string[];
/** What each expansion or include adds to an object, and the keys that object must have. */
type Nested = Record<string, Keys>;

/** The object's keys are exactly `keys` plus the nested objects named, each with exactly its own keys. */
function expectFields(object: ApiObject, keys: Keys, nested: Nested, label: string): void {
  expect(Object.keys(object).sort(), label).toEqual([...keys, ...Object.keys(nested)].sort());
  for (const [name, inner] of Object.entries(nested))
    expect(Object.keys(object[name]).sort(), `${label}: ${name}`).toEqual([...inner].sort());
}

/** One check: the request, where its objects are in the answer, and what each must hold. */
interface Case {
  label: string;
  send: () => Test;
  status: 200 | 201;
  /** The answer's objects: `data[0]` of a write, `data` of a retrieve, every item of a list. */
  objects: (body: ApiObject) => ApiObject[];
  keys: Keys;
  nested?: Nested;
  /** Top-level keys that join `keys` on this request (what `include[]` adds beside them). */
  extra?: Keys;
}

const written = (body: ApiObject) => {
  expect(body.data).toHaveLength(1);
  return body.data;
};
const one = (body: ApiObject) => [body.data];
const many = (body: ApiObject) => {
  expect(body.data.length).toBeGreaterThan(0);
  return body.data;
};

async function check(c: Case): Promise<void> {
  const res = await c.send();
  expect(res.status, `${c.label}: ${JSON.stringify(res.body)}`).toBe(c.status);
  for (const object of c.objects(res.body)) expectFields(object, [...c.keys, ...(c.extra ?? [])], c.nested ?? {}, c.label);
}

/** Every combination of the expansions: none, each alone, all of them. */
function expansions(all: Nested): Nested[] {
  const names = Object.keys(all);
  return [{}, ...names.map((n) => ({ [n]: all[n] })), ...(names.length > 1 ? [all] : [])];
}

/** `expand[]=a&expand[]=b` (and `include[]=…`) of the nested objects asked for. */
function queryOf(param: 'expand' | 'include', names: readonly string[]): string {
  return names.map((n) => `${param}[]=${n}`).join('&');
}

/** Query strings joined, the empty ones left out. */
const joinQuery = (...parts: string[]) => parts.filter(Boolean).join('&');

describe('field sets of the Partnership Program API’s resources', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  const get = (path: string) => t.request.get(path).set(org.auth);
  const post = (path: string, body: object) => t.request.post(path).set(org.auth).send(body);
  const put = (path: string, body: object) => t.request.put(path).set(org.auth).send(body);

  /** A create (`POST path?query`) and an update (`PUT path/id?query`): both answer an array of one object with these keys. */
  async function checkWrites(
    path: string,
    write: { create: object; id: string; update: object; keys: Keys; query?: string; extra?: Keys },
  ): Promise<void> {
    const { create, id, update, query = '', ...fields } = write;
    await check({ label: `POST ${path}?${query}`, send: () => post(`${path}?${query}`, create), status: 201, objects: written, ...fields });
    await check({
      label: `PUT ${path}/:id?${query}`,
      send: () => put(`${path}/${id}?${query}`, update),
      status: 200,
      objects: written,
      ...fields,
    });
  }

  /**
   * A list (`path?scope&query`) and a retrieve (`path/id?query`) with the same query: every
   * object of both has the same keys. A retrieve answers the object, a link's an array of one.
   */
  async function checkReads(
    path: string,
    read: { scope: string; id: string; query: string; keys: Keys; nested: Nested; extra?: Keys; retrieved?: Case['objects'] },
  ): Promise<void> {
    const { scope, id, query, retrieved = one, ...fields } = read;
    await check({ label: `GET ${path}?${query}`, send: () => get(`${path}?${scope}&${query}`), status: 200, objects: many, ...fields });
    await check({
      label: `GET ${path}/:id?${query}`,
      send: () => get(`${path}/${id}?${query}`),
      status: 200,
      objects: retrieved,
      ...fields,
    });
  }

  let partner: ApiObject;
  let link: ApiObject;
  let customer: ApiObject;
  let transaction: ApiObject;
  let commission: ApiObject;
  let payoutId: string;

  beforeAll(async () => {
    for (const table of TABLES) {
      await sql`alter table ${sql.table(table)} add column ${sql.ref(PROBE)} text not null default 'leaked'`.execute(t.storage.db);
    }
    partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: 'payouts@example.com' } });
    link = await createLink(t, org, partner);
    customer = await createCustomer(t, org, partner, { name: 'Ann' });
    transaction = await createTransaction(t, org, customer, { amount: 5000 });
    const made = await post('/v1/commissions', {
      amount: 700,
      customer_id: customer.id,
      transaction_id: transaction.id,
      status: 'approved',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    commission = made.body.data[0];
    const generated = await post('/v1/payouts/generate', { program_id: org.program_id, partner_ids: [partner.id] });
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    payoutId = generated.body.data.payouts[0].id;
  });

  it('the probe column is in every table, so a spread row would show it', async () => {
    const { rows } = await sql<{ table_name: string }>`select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = ${PROBE}`.execute(t.storage.db);
    expect(rows.map((r) => r.table_name).sort()).toEqual([...TABLES].sort());
  });

  it('partner: create and update the partner fields; list and retrieve too, with group, program and stats as asked', async () => {
    const group = { group: EXPANDED_GROUP_FIELDS };
    await checkWrites('/v1/partners', {
      create: { first_name: 'F', last_name: 'S', email: uniqueEmail(), program_id: org.program_id },
      id: partner.id,
      update: { company_name: 'Co' },
      keys: PARTNER_FIELDS,
    });
    // The list's program carries the program's terms; a retrieved partner's is the short one.
    const forList = { ...group, program: PARTNER_LIST_PROGRAM_FIELDS };
    const forRetrieve = { ...group, program: EXPANDED_PROGRAM_FIELDS };
    for (const stats of [false, true]) {
      const included: Nested = stats ? { stats: PARTNER_STATS_FIELDS } : {};
      const include = stats ? 'include[]=stats' : '';
      for (const expanded of expansions(forList)) {
        const query = joinQuery(queryOf('expand', Object.keys(expanded)), include);
        await check({
          label: `GET /v1/partners?${query}`,
          send: () => get(`/v1/partners?program_id=${org.program_id}&${query}`),
          status: 200,
          objects: many,
          keys: PARTNER_FIELDS,
          nested: { ...expanded, ...included },
        });
      }
      for (const expanded of expansions(forRetrieve)) {
        const query = joinQuery(queryOf('expand', Object.keys(expanded)), include);
        await check({
          label: `GET /v1/partners/:id?${query}`,
          send: () => get(`/v1/partners/${partner.id}?${query}`),
          status: 200,
          objects: one,
          keys: PARTNER_FIELDS,
          nested: { ...expanded, ...included },
        });
      }
    }
  });

  it('link: every operation the link fields, with partner and program as asked (a retrieve is an array of one, as the Partnership Program API says)', async () => {
    await checkWrites('/v1/links', {
      create: { param: 'ref', value: uniqueLinkValue(), partner_id: partner.id },
      id: link.id,
      update: { value: uniqueLinkValue() },
      keys: LINK_FIELDS,
    });
    for (const nested of expansions({ partner: EXPANDED_PARTNER_FIELDS, program: EXPANDED_PROGRAM_FIELDS })) {
      const query = queryOf('expand', Object.keys(nested));
      await checkReads('/v1/links', {
        scope: `program_id=${org.program_id}`,
        id: link.id,
        query,
        keys: LINK_FIELDS,
        nested,
        retrieved: written,
      });
    }
  });

  it('click: both creation methods answer the click fields', async () => {
    const fresh = await createLink(t, org, partner);
    await check({
      label: 'POST /v1/clicks (partner_id)',
      send: () => post('/v1/clicks', { partner_id: partner.id, link_id: fresh.id }),
      status: 201,
      objects: written,
      keys: CLICK_FIELDS,
    });
    await check({
      label: 'POST /v1/clicks (param, value)',
      send: () => post('/v1/clicks', { param: fresh.param, value: fresh.value }),
      status: 201,
      objects: written,
      keys: CLICK_FIELDS,
    });
  });

  it('customer: create and update add the identifier; list and retrieve the customer fields, with partner, program and stats as asked', async () => {
    await checkWrites('/v1/customers', {
      create: { email: uniqueEmail('cust'), partner_id: partner.id },
      id: customer.id,
      update: { name: 'Ann B' },
      keys: CUSTOMER_WRITE_FIELDS,
    });
    for (const nested of expansions({ partner: EXPANDED_PARTNER_FIELDS, program: EXPANDED_PROGRAM_FIELDS })) {
      const query = queryOf('expand', Object.keys(nested));
      await check({
        label: `GET /v1/customers?${query}`,
        send: () => get(`/v1/customers?program_id=${org.program_id}&${query}`),
        status: 200,
        // The Partnership Program API's customer list nests its array in data.data.
        objects: (body) => many(body.data),
        keys: CUSTOMER_FIELDS,
        nested,
      });
      for (const stats of [false, true]) {
        const withStats = joinQuery(query, stats ? 'include[]=stats' : '');
        await check({
          label: `GET /v1/customers/:id?${withStats}`,
          send: () => get(`/v1/customers/${customer.id}?${withStats}`),
          status: 200,
          objects: one,
          keys: CUSTOMER_FIELDS,
          nested: { ...nested, ...(stats ? { stats: CUSTOMER_STATS_FIELDS } : {}) },
        });
      }
    }
  });

  it("transaction (svc's own set, as the Partnership Program API leaves it open): create, update and refund its fields; list and retrieve with customer, partner and program as asked", async () => {
    await checkWrites('/v1/transactions', {
      create: { amount: 1000, customer_id: customer.id, charge_id: `ch_${uniqueLinkValue()}` },
      id: transaction.id,
      update: { product_name: 'Plan' },
      keys: TRANSACTION_FIELDS,
    });
    const refunded = await createTransaction(t, org, customer, { amount: 2000 });
    await check({
      label: 'PUT /v1/transactions/:id/refund',
      send: () => put(`/v1/transactions/${refunded.id}/refund`, { amount: 500 }),
      status: 200,
      objects: written,
      keys: TRANSACTION_FIELDS,
    });
    for (const nested of expansions({
      customer: EXPANDED_CUSTOMER_FIELDS,
      partner: EXPANDED_PARTNER_FIELDS,
      program: EXPANDED_PROGRAM_FIELDS,
    })) {
      const query = queryOf('expand', Object.keys(nested));
      await checkReads('/v1/transactions', {
        scope: `program_id=${org.program_id}`,
        id: transaction.id,
        query,
        keys: TRANSACTION_FIELDS,
        nested,
      });
    }
  });

  describe('commission', () => {
    const INCLUDE = queryOf('include', COMMISSION_INCLUDED_FIELDS);
    const ALL_EXPANSIONS = {
      partner: EXPANDED_PARTNER_FIELDS,
      program: EXPANDED_PROGRAM_FIELDS,
      customer: EXPANDED_CUSTOMER_FIELDS,
      transaction: EXPANDED_TRANSACTION_FIELDS,
    };

    it.each([
      ['the full set of the Partnership Program API', '', []],
      ['the full set and what include[]=rejection_reason adds', INCLUDE, COMMISSION_INCLUDED_FIELDS],
    ] as const)('create and update: %s', async (_name, query, extra) => {
      await checkWrites('/v1/commissions', {
        create: { amount: 100, customer_id: customer.id, status: 'rejected', rejection_reason: 'Test' },
        id: commission.id,
        update: { source: 'manual' },
        keys: COMMISSION_FULL_FIELDS,
        query,
        extra,
      });
    });

    it.each([
      ['only the short set of the Partnership Program API', '', []],
      ['the short set and what include[]=rejection_reason adds', INCLUDE, COMMISSION_INCLUDED_FIELDS],
    ] as const)('list and retrieve: %s, with partner, program, customer and transaction as asked', async (_name, include, extra) => {
      for (const nested of expansions(ALL_EXPANSIONS)) {
        const query = joinQuery(queryOf('expand', Object.keys(nested)), include);
        await checkReads('/v1/commissions', {
          scope: `program_id=${org.program_id}&customer_id=${customer.id}&transaction_id=${transaction.id}`,
          id: commission.id,
          query,
          keys: COMMISSION_SHORT_FIELDS,
          nested,
          extra,
        });
      }
      // A payout's commissions are in the list's set, with its include.
      await check({
        label: `GET /v1/payouts/:id/commissions?${include}`,
        send: () => get(`/v1/payouts/${payoutId}/commissions?${include}`),
        status: 200,
        objects: many,
        keys: COMMISSION_SHORT_FIELDS,
        extra,
      });
    });
  });

  it("events: data is the object exactly as create and update answer it; a commission's include[] fields are beside it, in included", async () => {
    const res = await get('/v1/events?limit=100');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sets: Record<string, Keys> = {
      partner: PARTNER_FIELDS,
      link: LINK_FIELDS,
      customer: CUSTOMER_WRITE_FIELDS,
      transaction: TRANSACTION_FIELDS,
      commission: COMMISSION_FULL_FIELDS,
    };
    const seen = new Set<string>();
    for (const event of res.body.data as ApiObject[]) {
      const resource = event.type.split('.')[0];
      if (!sets[resource]) continue;
      seen.add(resource);
      const envelope = ['id', 'type', 'created_at', 'data', ...(event.previous_attributes ? ['previous_attributes'] : [])];
      const included: Nested = resource === 'commission' ? { included: COMMISSION_INCLUDED_FIELDS } : {};
      expectFields(event, envelope, included, event.type);
      expectFields(event.data, sets[resource], {}, `${event.type} data`);
    }
    expect([...seen].sort()).toEqual(Object.keys(sets).sort());
  });
});
