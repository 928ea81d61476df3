import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { convertClickToLead } from '../../src/resources/customers/customers.service.js';
import { type ApiObject, clickOf, createPartner, createProgram, type TestOrg, uniqueEmail, uniqueSuffix } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { warmPool } from '../support/harness.js';

/**
 * The signup conversion behind the tracking script
 * (ingest/docs/commissions.md#who-a-customer-belongs-to), tested as a service function against the
 * test storage: click → lead of the click's partner.
 */

describe('convertClickToLead', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org, { first_name: 'Signup' });
  });

  const newClick = (partner: ApiObject, who: TestOrg = org) => clickOf(t, who, partner);

  const convert = (clickId: string, identifier: string, who: TestOrg = org) =>
    convertClickToLead(t.storage.db, { organizationId: who.organization_id, clickId, identifier }, {});

  /** Live customers of a program with this identifier (any case), from SQL. */
  const rowsWithIdentifier = (programId: string, identifier: string) =>
    t.storage.db
      .selectFrom('customers')
      .selectAll()
      .where('program_id', '=', programId)
      .where(sql`lower(identifier)`, '=', identifier.toLowerCase())
      .where('deleted_at', 'is', null)
      .execute();

  /** Runs the promise and returns the ApiError it rejects with (failing when it resolves or throws anything else). */
  async function apiErrorOf(p: Promise<unknown>): Promise<ApiError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }

  it("creates a lead attributed to the click's partner, with click_id and the e-mail identifier as email", async () => {
    const click = await newClick(partner);
    const email = uniqueEmail('signup');
    const before = Date.now();
    const row = await convert(click.id, email);

    expect(row).toMatchObject({
      identifier: email,
      email,
      status: 'lead',
      partner_id: partner.id,
      program_id: org.program_id,
      organization_id: org.organization_id,
      click_id: click.id,
      promotion_code_id: null,
      customer_id: null,
      active_at: null,
      deleted_at: null,
    });
    expect(row.id).toMatch(/^cust_[0-9A-Za-z]{24}$/);
    expect(new Date(row.lead_at).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(row.lead_at).getTime()).toBe(new Date(row.created_at).getTime());

    expect(await rowsWithIdentifier(org.program_id, email)).toHaveLength(1);
    const res = await t.request.get(`/v1/customers/${row.id}`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: row.id, email, status: 'lead', partner_id: partner.id, click_id: click.id });
  });

  it('keeps a non-e-mail identifier (a user id) without setting email', async () => {
    const click = await newClick(partner);
    const identifier = `user_${uniqueSuffix()}`;
    const row = await convert(click.id, identifier);
    expect(row).toMatchObject({ identifier, email: null, partner_id: partner.id, click_id: click.id });
    const [stored] = await rowsWithIdentifier(org.program_id, identifier);
    expect(stored).toMatchObject({ id: row.id, identifier, email: null });
  });

  it('does not treat a string with an @ but no domain as an e-mail', async () => {
    const click = await newClick(partner);
    const identifier = `handle@${uniqueSuffix()}`;
    const row = await convert(click.id, identifier);
    expect(row.email).toBeNull();
  });

  it("attributes to the click's partner in the click's program", async () => {
    const program = await createProgram(t, org);
    const elsewhere = await createPartner(t, org, { program_id: program.id });
    const click = await newClick(elsewhere);
    const row = await convert(click.id, uniqueEmail());
    expect(row).toMatchObject({ partner_id: elsewhere.id, program_id: program.id });
  });

  it('throws a 409 "Customer already exists" for an identifier taken in the program, in any case', async () => {
    const click = await newClick(partner);
    const email = uniqueEmail('twice');
    const first = await convert(click.id, email);
    for (const again of [email, email.toUpperCase()]) {
      const err = await apiErrorOf(convert(click.id, again));
      expect(err.status).toBe(409);
      expect(err.message).toBe('Customer already exists');
      expect(err.toBody()).toMatchObject({
        success: false,
        error: { message: 'Customer already exists', type: 'conflict_error' },
        data: { id: first.id },
      });
    }
    expect((await rowsWithIdentifier(org.program_id, email)).map((r) => r.id)).toEqual([first.id]);
  });

  it('throws 409 when a customer created through the API already holds the identifier', async () => {
    const email = uniqueEmail('api-first');
    const created = await t.request.post('/v1/customers').set(org.auth).send({ email, partner_id: partner.id });
    expect(created.status).toBe(201);
    const click = await newClick(partner);
    const err = await apiErrorOf(convert(click.id, email.toUpperCase()));
    expect(err.status).toBe(409);
    expect(err.message).toBe('Customer already exists');
    expect(await rowsWithIdentifier(org.program_id, email)).toHaveLength(1);
  });

  it('allows an identifier again after its customer was deleted', async () => {
    const click = await newClick(partner);
    const email = uniqueEmail('reuse');
    const first = await convert(click.id, email);
    expect((await t.request.delete(`/v1/customers/${first.id}`).set(org.auth)).status).toBe(200);
    const second = await convert(click.id, email);
    expect(second.id).not.toBe(first.id);
    expect((await rowsWithIdentifier(org.program_id, email)).map((r) => r.id)).toEqual([second.id]);
  });

  it('allows the same identifier in another program', async () => {
    const email = uniqueEmail('two-programs');
    await convert((await newClick(partner)).id, email);
    const program = await createProgram(t, org);
    const elsewhere = await createPartner(t, org, { program_id: program.id });
    const row = await convert((await newClick(elsewhere)).id, email);
    expect(row.program_id).toBe(program.id);
  });

  it('lets exactly one of two simultaneous signups with one identifier win; the other gets 409', async () => {
    const click = await newClick(partner);
    const email = uniqueEmail('race');
    await warmPool(t);
    const results = await Promise.allSettled([convert(click.id, email), convert(click.id, email.toUpperCase())]);

    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(ApiError);
    expect(rejected[0].reason.status).toBe(409);
    expect(rejected[0].reason.message).toBe('Customer already exists');

    const rows = await rowsWithIdentifier(org.program_id, email);
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe((fulfilled[0] as PromiseFulfilledResult<{ id: string }>).value.id);
  });

  it('throws 404 for an unknown click and for a click of another organization, creating nothing', async () => {
    const email = uniqueEmail('no-click');
    const unknown = await apiErrorOf(convert('clk_doesnotexist', email));
    expect(unknown.status).toBe(404);

    const click = await newClick(partner);
    const foreign = await apiErrorOf(convert(click.id, email, otherOrg));
    expect(foreign.status).toBe(404);
    const rows = await t.storage.db.selectFrom('customers').select('id').where(sql`lower(identifier)`, '=', email).execute();
    expect(rows).toHaveLength(0);
  });
});
