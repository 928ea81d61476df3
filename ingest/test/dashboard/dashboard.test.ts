import { sql } from 'kysely';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../src/resources/users/users.service.js';
import { commissionsOf, createCustomer, createPartner, createTransaction, type TestOrg, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';

/**
 * The dashboard's rules on the server (README, "Dashboard"): sign-in and its throttle, sessions
 * in SQL, CSRF, roles, another organization's ids, and bulk changes all or nothing. The browser
 * flows are in e2e/dashboard.spec.ts.
 */

const PASSWORD = 'correct horse battery';

type Agent = ReturnType<typeof supertest.agent>;

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A user of the organization, signed in through the form; the agent keeps the session cookie. */
async function signedIn(
  t: TestApp,
  org: TestOrg,
  role: 'owner' | 'member' = 'owner',
): Promise<{ agent: Agent; csrf: string; email: string }> {
  const email = uniqueEmail(role);
  await createUser(t.deps.db, org.organization_id, { email, role, password: PASSWORD });
  const agent = supertest.agent(t.app);
  const res = await agent.post('/dashboard/sign-in').type('form').send({ email, password: PASSWORD });
  expect(res.status, res.text).toBe(303);
  const page = await agent.get(`/dashboard/programs/${org.program_id}`);
  expect(page.status).toBe(200);
  return { agent, csrf: csrfOf(page.text), email };
}

describe('dashboard', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  it('signs in, refuses a wrong password and an unknown e-mail alike, and signs out', async () => {
    const [org] = orgs;
    const email = uniqueEmail('owner');
    await createUser(t.deps.db, org.organization_id, { email, role: 'owner', password: PASSWORD });
    const agent = supertest.agent(t.app);

    expect((await agent.get('/dashboard')).headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard');
    const wrong = await agent.post('/dashboard/sign-in').type('form').send({ email, password: 'not the password' });
    const unknown = await agent
      .post('/dashboard/sign-in')
      .type('form')
      .send({ email: uniqueEmail('nobody'), password: PASSWORD });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.text).toContain('That e-mail and password do not match an account.');
      expect(res.headers['set-cookie']).toBeUndefined();
    }

    const ok = await agent
      .post('/dashboard/sign-in')
      .type('form')
      .send({ email: email.toUpperCase(), password: PASSWORD, next: '/dashboard/integrations' });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe('/dashboard/integrations');
    const cookie = ok.headers['set-cookie'][0];
    expect(cookie).toMatch(/^svc_session=[0-9A-Za-z]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    // Only the token's hash is stored.
    const token = /svc_session=([^;]+)/.exec(cookie)![1];
    const rows = await sql<{ id: string }>`select id from sessions where id = ${token}`.execute(t.deps.db);
    expect(rows.rows).toHaveLength(0);

    const page = await agent.get(`/dashboard/programs/${org.program_id}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');

    const out = await agent
      .post('/dashboard/sign-out')
      .type('form')
      .send({ _csrf: csrfOf(page.text) });
    expect(out.status).toBe(303);
    // The session is gone from SQL: the old cookie opens nothing.
    const again = await supertest(t.app).get(`/dashboard/programs/${org.program_id}`).set('Cookie', `svc_session=${token}`);
    expect(again.status).toBe(303);
    expect(again.headers.location).toMatch(/^\/dashboard\/sign-in/);
  });

  it('never sends a signed-in user to another site after signing in', async () => {
    const [org] = orgs;
    const email = uniqueEmail('owner');
    await createUser(t.deps.db, org.organization_id, { email, role: 'owner', password: PASSWORD });
    for (const next of ['//evil.example/x', 'https://evil.example', '/dashboard\\@evil.example', '/v1/programs']) {
      const res = await supertest(t.app).post('/dashboard/sign-in').type('form').send({ email, password: PASSWORD, next });
      expect(res.headers.location, next).toBe('/dashboard');
    }
  });

  it('an expired session signs nobody in', async () => {
    const [org] = orgs;
    const { agent } = await signedIn(t, org);
    await sql`update sessions set expires_at = now() - interval '1 second'
               where user_id in (select id from users where organization_id = ${org.organization_id})`.execute(t.deps.db);
    const res = await agent.get(`/dashboard/programs/${org.program_id}/partners`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/programs/${org.program_id}/partners`)}`);
  });

  it('throttles sign-in attempts per e-mail address', async () => {
    const email = uniqueEmail('target');
    const attempt = () => supertest(t.app).post('/dashboard/sign-in').type('form').send({ email, password: 'guess' });
    for (let i = 0; i < 10; i++) expect((await attempt()).status).toBe(401);
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many sign-in attempts');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses a state-changing request without the session token or from another origin (CSRF)', async () => {
    const [org] = orgs;
    const { agent, csrf } = await signedIn(t, org);
    const keysBefore = (await t.request.get('/v1/api-keys').set(org.auth)).body.total_count;

    const noToken = await agent.post('/dashboard/integrations/api-keys').type('form').send({ name: 'forged' });
    const badToken = await agent
      .post('/dashboard/integrations/api-keys')
      .type('form')
      .send({ name: 'forged', _csrf: `${csrf.slice(1)}x` });
    const crossSite = await agent
      .post('/dashboard/integrations/api-keys')
      .set('Sec-Fetch-Site', 'same-site')
      .type('form')
      .send({ name: 'forged', _csrf: csrf });
    const otherOrigin = await agent
      .post('/dashboard/integrations/api-keys')
      .set('Origin', 'http://evil.example')
      .type('form')
      .send({ name: 'forged', _csrf: csrf });
    for (const res of [noToken, badToken, crossSite, otherOrigin]) expect(res.status).toBe(403);
    const signInFromElsewhere = await supertest(t.app)
      .post('/dashboard/sign-in')
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ email: 'x@example.com', password: PASSWORD });
    expect(signInFromElsewhere.status).toBe(403);
    expect((await t.request.get('/v1/api-keys').set(org.auth)).body.total_count).toBe(keysBefore);

    const real = await agent
      .post('/dashboard/integrations/api-keys')
      .set('Sec-Fetch-Site', 'same-origin')
      .type('form')
      .send({ name: 'real', _csrf: csrf });
    expect(real.status).toBe(200);
    expect(real.text).toMatch(/sk_[0-9A-Za-z]{32}/);
    expect((await t.request.get('/v1/api-keys').set(org.auth)).body.total_count).toBe(keysBefore + 1);
  });

  it('members run the program but cannot open integrations, keys or users', async () => {
    const [org] = orgs;
    const { agent, csrf } = await signedIn(t, org, 'member');
    const overview = await agent.get(`/dashboard/programs/${org.program_id}`);
    expect(overview.status).toBe(200);
    expect(overview.text).not.toContain('/dashboard/integrations"');
    expect((await agent.get('/dashboard/integrations')).status).toBe(403);
    const key = await agent.post('/dashboard/integrations/api-keys').type('form').send({ name: 'member key', _csrf: csrf });
    expect(key.status).toBe(403);
    const user = await agent
      .post('/dashboard/integrations/users')
      .type('form')
      .send({ email: uniqueEmail('x'), role: 'owner', _csrf: csrf });
    expect(user.status).toBe(403);
    expect((await agent.get(`/dashboard/programs/${org.program_id}/partners`)).status).toBe(200);
  });

  it("answers 404 for another organization's program, partner, commission and key", async () => {
    const [org, other] = orgs;
    const { agent, csrf } = await signedIn(t, org);
    const partner = await createPartner(t, other);
    const customer = await createCustomer(t, other, partner);
    const [commission] = await commissionsOf(t, other, await createTransaction(t, other, customer));
    const otherKey = (await t.request.get('/v1/api-keys').set(other.auth)).body.data[0];

    expect((await agent.get(`/dashboard/programs/${other.program_id}`)).status).toBe(404);
    expect((await agent.get(`/dashboard/programs/${other.program_id}/partners`)).status).toBe(404);
    expect((await agent.get(`/dashboard/programs/${org.program_id}/partners/${partner.id}`)).status).toBe(404);
    const approve = await agent
      .post(`/dashboard/programs/${org.program_id}/partners/${partner.id}/status`)
      .type('form')
      .send({ action: 'reject', _csrf: csrf });
    expect(approve.status).toBe(404);
    const bulk = await agent
      .post(`/dashboard/programs/${org.program_id}/commissions/bulk`)
      .type('form')
      .send({ action: 'reject', ids: commission.id, _csrf: csrf });
    expect(bulk.status).toBe(404);
    const revoke = await agent.post(`/dashboard/integrations/api-keys/${otherKey.id}/revoke`).type('form').send({ _csrf: csrf });
    expect(revoke.status).toBe(404);
    // Nothing of theirs changed.
    expect((await commissionsOf(t, other, { id: commission.transaction_id, program_id: other.program_id }))[0].status).toBe(
      commission.status,
    );
    expect((await t.request.get(`/v1/partners/${partner.id}`).set(other.auth)).body.data.status).toBe('active');
    expect((await t.request.get('/v1/api-keys').set(other.auth)).body.total_count).toBe(1);
  });

  it('approves several commissions in one transaction, or none when one of them cannot change', async () => {
    const [org] = orgs;
    const { agent, csrf } = await signedIn(t, org);
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    const pending = [];
    for (let i = 0; i < 3; i++) pending.push(...(await commissionsOf(t, org, await createTransaction(t, org, customer))));
    const ids = pending.map((c) => c.id);
    const url = `/dashboard/programs/${org.program_id}/commissions/bulk`;

    // One of them is deleted first: the batch naming it changes nothing at all.
    expect((await t.request.delete(`/v1/commissions/${ids[2]}`).set(org.auth)).status).toBe(200);
    const refused = await agent.post(url).type('form').send({ action: 'reject', ids, _csrf: csrf });
    expect(refused.status).toBe(404);
    expect(refused.text).toContain(ids[2]);
    const statuses = async () =>
      Promise.all(ids.slice(0, 2).map(async (id) => (await t.request.get(`/v1/commissions/${id}`).set(org.auth)).body.data.status));
    expect(await statuses()).toEqual(['pending', 'pending']);

    const approved = await agent
      .post(url)
      .type('form')
      .send({ action: 'approve', ids: ids.slice(0, 2), _csrf: csrf, back: `?partner_id=${partner.id}` });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(
      `/dashboard/programs/${org.program_id}/commissions?partner_id=${partner.id}&notice=commissions-approved`,
    );
    expect(await statuses()).toEqual(['approved', 'approved']);

    const nothing = await agent.post(url).type('form').send({ action: 'approve', _csrf: csrf });
    expect(nothing.status).toBe(400);
    const unknownAction = await agent.post(url).type('form').send({ action: 'delete', ids: ids[0], _csrf: csrf });
    expect(unknownAction.status).toBe(400);
  });

  it('approves and rejects pending partners with a note, through the same rules as the API', async () => {
    const [org] = orgs;
    const { agent, csrf } = await signedIn(t, org);
    const a = await createPartner(t, org, { status: 'pending' });
    const b = await createPartner(t, org, { status: 'pending' });
    const base = `/dashboard/programs/${org.program_id}/partners`;
    expect((await agent.post(`${base}/${a.id}/status`).type('form').send({ action: 'approve', _csrf: csrf })).status).toBe(303);
    const reject = await agent
      .post(`${base}/${b.id}/status`)
      .type('form')
      .send({ action: 'reject', rejection_note: 'Not a fit', _csrf: csrf });
    expect(reject.headers.location).toBe(`${base}/${b.id}?notice=partner-rejected`);
    const partnerNow = async (id: string) => (await t.request.get(`/v1/partners/${id}`).set(org.auth)).body.data;
    expect((await partnerNow(a.id)).status).toBe('active');
    expect(await partnerNow(b.id)).toMatchObject({ status: 'rejected', rejection_note: 'Not a fit' });
    const tooLong = await agent
      .post(`${base}/${a.id}/status`)
      .type('form')
      .send({ action: 'suspend', suspension_reason: 'x'.repeat(2001), _csrf: csrf });
    expect(tooLong.status).toBe(400);
    expect((await partnerNow(a.id)).status).toBe('active');
    const page = await agent.get(`${base}/${b.id}?notice=partner-rejected`);
    expect(page.text).toContain('Partner rejected.');
    expect((await agent.get(`${base}/${b.id}?notice=<script>`)).text).not.toContain('<script>');
  });
});
