import { sql } from 'kysely';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { csrfOf, dashboardAgent, dashboardUser, PASSWORD } from '../support/dashboard.js';
import {
  commissionsOf,
  createCustomer,
  createLink,
  createPartner,
  createProgram,
  createTransaction,
  uniqueEmail,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's rules on the server (ingest/docs/dashboard.md): sign-in and its throttle,
 * sessions in SQL, CSRF, roles, another organization's ids, and bulk changes all or nothing. The
 * browser flows are in e2e/dashboard.spec.ts.
 */

describe('dashboard', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  it('signs in, refuses a wrong password and an unknown e-mail alike, and signs out', async () => {
    const [org] = orgs;
    const email = await dashboardUser(t, org);
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
    const email = await dashboardUser(t, org);
    for (const next of ['//evil.example/x', 'https://evil.example', '/dashboard\\@evil.example', '/v1/programs']) {
      const res = await supertest(t.app).post('/dashboard/sign-in').type('form').send({ email, password: PASSWORD, next });
      expect(res.headers.location, next).toBe('/dashboard');
    }
  });

  it('an expired session signs nobody in', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    await sql`update sessions set expires_at = now() - interval '1 second'
               where user_id in (select id from users where organization_id = ${org.organization_id})`.execute(t.deps.db);
    const res = await agent.get(`/dashboard/programs/${org.program_id}/partners`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/programs/${org.program_id}/partners`)}`);
  });

  it('throttles failed sign-in attempts per e-mail address, the right password included once blocked; successes are not counted', async () => {
    const [org] = orgs;
    const email = await dashboardUser(t, org, 'member');
    const attempt = (password: string) => supertest(t.app).post('/dashboard/sign-in').type('form').send({ email, password });
    for (let i = 0; i < 12; i++) expect((await attempt(PASSWORD)).status).toBe(303);
    for (let i = 0; i < 10; i++) expect((await attempt('guess')).status).toBe(401);
    for (const password of ['guess', PASSWORD]) {
      const refused = await attempt(password);
      expect(refused.status).toBe(429);
      expect(refused.text).toContain('Too many failed sign-in attempts');
      expect(refused.headers['set-cookie']).toBeUndefined();
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another address from the same client is not held back.
    const other = await dashboardUser(t, org, 'member');
    expect((await supertest(t.app).post('/dashboard/sign-in').type('form').send({ email: other, password: PASSWORD })).status).toBe(303);
  }, 60_000); // 25 password hashes (about 0.3 s each, more on a busy machine)

  it('renews a session used a day after its last renewal, in SQL and in the cookie', async () => {
    const [org] = orgs;
    const { agent, email } = await dashboardAgent(t, org);
    const page = `/dashboard/programs/${org.program_id}`;
    expect((await agent.get(page)).headers['set-cookie']).toBeUndefined();
    const inFiveDays = new Date(Date.now() + 5 * 86_400_000);
    await sql`update sessions set expires_at = ${inFiveDays}
               where user_id = (select id from users where lower(email) = lower(${email}))`.execute(t.deps.db);
    const renewed = await agent.get(page);
    const cookie = renewed.headers['set-cookie']?.[0] ?? '';
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)?.[1] ?? '');
    expect(expires).toBeGreaterThan(Date.now() + 6.9 * 86_400_000);
    const stored = await sql<{ expires_at: Date }>`select expires_at from sessions
               where user_id = (select id from users where lower(email) = lower(${email}))`.execute(t.deps.db);
    expect(new Date(stored.rows[0].expires_at).getTime()).toBeGreaterThan(Date.now() + 6.9 * 86_400_000);
  });

  it('counts parallel guesses: of 30 at once, at most 10 are tried', async () => {
    const email = uniqueEmail('parallel');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => supertest(t.app).post('/dashboard/sign-in').type('form').send({ email, password: 'guess' })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it('refuses a state-changing request without the session token or from another origin (CSRF)', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
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
    const multibyte = await agent
      .post('/dashboard/integrations/api-keys')
      .type('form')
      .send({ name: 'forged', _csrf: `${'a'.repeat(csrf.length - 1)}é` });
    for (const res of [noToken, badToken, crossSite, otherOrigin, multibyte]) expect(res.status).toBe(403);
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
    const { agent, csrf } = await dashboardAgent(t, org, 'member');
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
    const { agent, csrf } = await dashboardAgent(t, org);
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
    // A commission of another program of the same organization is not found under this program either.
    const program = await createProgram(t, org);
    const elsewhere = await createPartner(t, org, { program_id: program.id });
    const [theirs] = await commissionsOf(t, org, await createTransaction(t, org, await createCustomer(t, org, elsewhere)));
    const crossProgram = await agent
      .post(`/dashboard/programs/${org.program_id}/commissions/bulk`)
      .type('form')
      .send({ action: 'approve', ids: theirs.id, _csrf: csrf });
    expect(crossProgram.status).toBe(404);
    expect((await t.request.get(`/v1/commissions/${theirs.id}`).set(org.auth)).body.data.status).toBe('pending');
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
    const { agent, csrf } = await dashboardAgent(t, org);
    const partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: uniqueEmail('paid') } });
    const customer = await createCustomer(t, org, partner);
    const pending = [];
    for (let i = 0; i < 3; i++) pending.push(...(await commissionsOf(t, org, await createTransaction(t, org, customer))));
    const ids = pending.map((c) => c.id);
    const url = `/dashboard/programs/${org.program_id}/commissions/bulk`;

    // One of them is deleted first: the batch naming it changes nothing at all.
    expect((await t.request.delete(`/v1/commissions/${ids[2]}`).set(org.auth)).status).toBe(200);
    const refused = await agent.post(url).type('form').send({ action: 'reject', ids, _csrf: csrf });
    expect(refused.status).toBe(404);
    // The list again, the refusal in words at its top, the commissions still there still chosen.
    expect(refused.text).toContain(
      '<p class="error" role="alert">One of the chosen commissions is no longer there (it was deleted since this page was shown). Nothing was changed: choose again.</p>',
    );
    for (const id of ids.slice(0, 2)) expect(refused.text).toMatch(new RegExp(`value="${id}" form="bulk" aria-label="[^"]*" checked`));
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

    // In a payout not paid yet, they cannot be rejected: the refusal says which, in words, without an id.
    const generated = await t.request
      .post('/v1/payouts/generate')
      .set(org.auth)
      .send({ program_id: org.program_id, partner_ids: [partner.id] });
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    const inPayout = await agent
      .post(url)
      .type('form')
      .send({ action: 'reject', ids: ids.slice(0, 2), _csrf: csrf });
    expect(inPayout.status).toBe(400);
    const alert = /<p class="error" role="alert">([^<]*)<\/p>/.exec(inPayout.text)?.[1] ?? '';
    expect(alert).toMatch(/^Nothing was changed: .+ cannot change\. It is in a payout, which is not paid yet: cancel the payout first/);
    expect(alert).not.toMatch(/comm_|po_/);
    expect(await statuses()).toEqual(['approved', 'approved']);

    const nothing = await agent.post(url).type('form').send({ action: 'approve', _csrf: csrf });
    expect(nothing.status).toBe(400);
    const unknownAction = await agent.post(url).type('form').send({ action: 'delete', ids: ids[0], _csrf: csrf });
    expect(unknownAction.status).toBe(400);
  });

  it('rejects several commissions with a reason for the partner, in one transaction, and shows it with their status', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });
    const customer = await createCustomer(t, org, partner);
    const chosen = [];
    for (let i = 0; i < 3; i++) chosen.push(...(await commissionsOf(t, org, await createTransaction(t, org, customer))));
    const ids = chosen.map((c) => c.id);
    const url = `/dashboard/programs/${program.id}/commissions/bulk`;
    const get = async (id: string) => (await t.request.get(`/v1/commissions/${id}?include[]=rejection_reason`).set(org.auth)).body.data;

    const page = await agent.get(`/dashboard/programs/${program.id}/commissions`);
    expect(page.text).toContain('<label for="rejection-reason">Reason (shown to the partner)</label>');
    expect(page.text).toMatch(
      /<input id="rejection-reason" name="rejection_reason" type="text" value placeholder="[^"]*" maxlength="2000"/,
    );

    // Too long: refused, and none of them changes.
    const tooLong = await agent
      .post(url)
      .type('form')
      .send({ action: 'reject', ids, rejection_reason: 'x'.repeat(2001), _csrf: csrf });
    expect(tooLong.status).toBe(400);
    // Beside the field, in words, with what was typed.
    expect(tooLong.text).toContain('<span class="field-error" id="rejection-reason-error">Must be at most 2000 characters.</span>');
    expect(tooLong.text).toContain(`value="${'x'.repeat(2001)}"`);
    for (const id of ids) expect(await get(id)).toMatchObject({ status: 'pending', rejection_reason: null });

    const reason = 'Orders <cancelled> by the customer';
    const rejected = await agent
      .post(url)
      .type('form')
      .send({ action: 'reject', ids: ids.slice(0, 2), rejection_reason: reason, _csrf: csrf });
    expect(rejected.status).toBe(303);
    for (const id of ids.slice(0, 2)) expect(await get(id)).toMatchObject({ status: 'rejected', rejection_reason: reason });
    // Rejected with the field left empty: no reason.
    expect((await agent.post(url).type('form').send({ action: 'reject', ids: ids[2], rejection_reason: '', _csrf: csrf })).status).toBe(
      303,
    );
    expect(await get(ids[2])).toMatchObject({ status: 'rejected', rejection_reason: null });

    // The list shows the reason under the status, escaped.
    const list = await agent.get(`/dashboard/programs/${program.id}/commissions?status=rejected`);
    const rows = list.text.split('</tr>').filter((r) => ids.some((id) => r.includes(`value="${id}"`)));
    expect(rows).toHaveLength(3);
    const rowOf = (id: string) => rows.find((r) => r.includes(`value="${id}"`))!;
    expect(rowOf(ids[0])).toContain('<span class="sub">Reason: Orders &lt;cancelled> by the customer</span>');
    expect(rowOf(ids[2])).not.toContain('Reason:');
    // So do the partner's and the payment's pages.
    expect((await agent.get(`/dashboard/programs/${program.id}/partners/${partner.id}`)).text).toContain('Reason: Orders &lt;cancelled>');
    const txnPage = await agent.get(`/dashboard/programs/${program.id}/transactions/${chosen[0].transaction_id}`);
    expect(txnPage.text).toContain('Reason: Orders &lt;cancelled>');

    // Approving them again clears the reason; a reason typed before approving is not given.
    const approved = await agent.post(url).type('form').send({ action: 'approve', ids: ids[0], rejection_reason: 'ignored', _csrf: csrf });
    expect(approved.status).toBe(303);
    expect(await get(ids[0])).toMatchObject({ status: 'approved', rejection_reason: null });
  });

  it('loads under 100 KB of JavaScript (gzip) on any page, every script from this origin, cached for good', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    for (const path of [
      `/dashboard/programs/${org.program_id}`,
      `/dashboard/programs/${org.program_id}/partners`,
      '/dashboard/integrations/webhooks',
    ]) {
      const page = await agent.get(path);
      const scripts = [...page.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
      expect(page.text).not.toMatch(/<script(?![^>]*src=)[^>]*>/);
      expect(scripts.length).toBeGreaterThan(0);
      let bytes = 0;
      for (const src of scripts) {
        expect(src).toMatch(/^\/dashboard\/assets\/[a-z.]+\?v=[0-9a-f]{12}$/);
        const res = await agent
          .get(src)
          .set('Accept-Encoding', 'gzip')
          .buffer(true)
          .parse((r, done) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => done(null, Buffer.concat(chunks)));
          });
        expect(res.headers['content-encoding']).toBe('gzip');
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        bytes += (res.body as Buffer).length;
      }
      expect(bytes, path).toBeLessThan(100 * 1024);
    }
  });

  it('ranks partners by a stat, highest first, in numbered pages, within the search', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const tag = uniqueSuffix();
    for (const [i, amount] of [1000, 5000, 3000].entries()) {
      const partner = await createPartner(t, org, { program_id: program.id, first_name: `Rank${i}`, last_name: tag });
      await createTransaction(t, org, await createCustomer(t, org, partner), { amount });
    }
    const base = `/dashboard/programs/${program.id}/partners`;
    const order = (html: string) => [...html.matchAll(new RegExp(`>(Rank\\d) ${tag}<`, 'g'))].map((m) => m[1]);
    expect(order((await agent.get(`${base}?sort=revenue&search=${tag}`)).text)).toEqual(['Rank1', 'Rank2', 'Rank0']);
    expect(order((await agent.get(`${base}?search=${tag}`)).text)).toEqual(['Rank2', 'Rank1', 'Rank0']);
    expect(order((await agent.get(`${base}?sort=revenue&search=Rank0`)).text)).toEqual(['Rank0']);
    const second = await agent.get(`${base}?sort=revenue&page=2&search=${tag}`);
    expect(second.status).toBe(200);
    expect(order(second.text)).toEqual([]);
    expect((await agent.get(`${base}?sort=height`)).status).toBe(400);
    expect((await agent.get(`${base}?sort=revenue&page=0`)).status).toBe(400);
  });

  it("adds, edits and deletes a partner's links through the links service; another partner's link is a 404", async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const alice = await createPartner(t, org);
    const bob = await createPartner(t, org);
    const bobs = await createLink(t, org, bob);
    const base = `/dashboard/programs/${org.program_id}/partners/${alice.id}`;
    const value = `a${uniqueSuffix()}`;
    expect((await agent.post(`${base}/links`).type('form').send({ param: 'ref', value, _csrf: csrf })).status).toBe(303);
    const links = async () =>
      (await t.request.get('/v1/links').query({ program_id: org.program_id, partner_id: alice.id }).set(org.auth)).body.data;
    const [link] = await links();
    expect(link.value).toBe(value);

    const edited = await agent
      .post(`${base}/links/${link.id}`)
      .type('form')
      .send({ value: `${value}x`, _csrf: csrf });
    expect(edited.headers.location).toBe(`${base}?notice=link-saved`);
    expect((await links())[0].value).toBe(`${value}x`);
    // Bob's value is taken: the service's 409, and nothing changes.
    expect((await agent.post(`${base}/links/${link.id}`).type('form').send({ value: bobs.value, _csrf: csrf })).status).toBe(409);
    expect((await agent.post(`${base}/links/${bobs.id}/delete`).type('form').send({ _csrf: csrf })).status).toBe(404);
    expect((await agent.post(`${base}/links/${bobs.id}`).type('form').send({ value: 'stolen', _csrf: csrf })).status).toBe(404);
    const bobsNow = await t.request.get(`/v1/links/${bobs.id}`).set(org.auth);
    expect(bobsNow.body.data[0].value).toBe(bobs.value);

    expect((await agent.post(`${base}/links/${link.id}/delete`).type('form').send({ _csrf: csrf })).status).toBe(303);
    expect(await links()).toEqual([]);
  });

  it('approves and rejects pending partners with a note, through the same rules as the API', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
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
