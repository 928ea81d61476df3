import { sql } from 'kysely';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createPartner, createProgram, getPartner, uniqueEmail, uniqueSuffix } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { signInLinkCausedBy } from '../support/outbox.js';
import { portalAgent } from '../support/portal.js';

/**
 * Getting into the partner portal (ingest/docs/partner-portal.md): sign-up with its rules, sign-in
 * links (one use, short expiry), sessions per program, status pages, embed tokens. The pages'
 * contents are in the other files of this folder; the browser flows in e2e/portal.spec.ts.
 */

const joinBody = (overrides: Record<string, string> = {}) => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: uniqueEmail('ada'),
  country_code: 'GB',
  payout_method: 'paypal',
  ...overrides,
});

describe('partner portal access', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  it('answers 404 for an unknown program', async () => {
    const res = await t.request.get(`/p/no-such-${uniqueSuffix()}/sign-in`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/html/);
  });

  it('signs up a partner as pending with a link, and one e-mail per program regardless of case', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const body = joinBody();
    const res = await t.request.post(`/p/${program.subdomain}/join`).type('form').send(body);
    expect(res.status, res.text).toBe(200);
    const partners = await t.request.get('/v1/partners').query({ program_id: program.id, email: body.email }).set(org.auth);
    expect(partners.body.data).toHaveLength(1);
    expect(partners.body.data[0]).toMatchObject({ status: 'pending', country_code: 'GB', payout_method: 'paypal' });
    const links = await t.request.get('/v1/links').query({ program_id: program.id, partner_id: partners.body.data[0].id }).set(org.auth);
    expect(links.body.data.map((l: { value: string }) => l.value)).toEqual([expect.stringMatching(/^ada\d*$/)]);

    // The second sign-up sends a sign-in link instead.
    const link = await signInLinkCausedBy(t, body.email, async () => {
      const again = await t.request
        .post(`/p/${program.subdomain}/join`)
        .type('form')
        .send({ ...body, email: body.email.toUpperCase() });
      expect(again.status).toBe(200);
      expect(again.text).toBe(res.text);
    });
    const after = await t.request.get('/v1/partners').query({ program_id: program.id, email: body.email }).set(org.auth);
    expect(after.body.data).toHaveLength(1);
    expect(link).toMatch(new RegExp(`^/p/${program.subdomain}/sign-in/`));
  });

  it('starts active when the program approves automatically; refuses bad input, a private program and a filled honeypot', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { auto_approve_partners: true, partner_terms: 'Be nice.\n\nNo spam.' });
    const join = (body: Record<string, string>) => t.request.post(`/p/${program.subdomain}/join`).type('form').send(body);

    // Each refusal beside its field, in plain words, with what was typed kept.
    const noTerms = await join(joinBody({ first_name: 'Typed' }));
    expect(noTerms.status).toBe(400);
    expect(noTerms.text).toContain(`<span class="field-error" id="accept_terms-error">Accept the program's terms to join.</span>`);
    expect(noTerms.text).toMatch(/name="accept_terms" required aria-invalid="true" aria-describedby="accept_terms-error"/);
    expect(noTerms.text).toMatch(/name="first_name" [^>]*value="Typed"/);
    expect(noTerms.text).toContain('<option value="GB" selected>');
    const badCountry = await join(joinBody({ accept_terms: 'on', country_code: 'XX' }));
    expect(badCountry.status).toBe(400);
    expect(badCountry.text).toMatch(/<span class="field-error" id="country_code-error">[^<]+<\/span>/);
    expect(badCountry.text).toMatch(/name="accept_terms" required checked/);
    const badMethod = await join(joinBody({ accept_terms: 'on', payout_method: 'crypto' }));
    expect(badMethod.status).toBe(400);
    expect(badMethod.text).toContain('<span class="field-error" id="payout_method-error">This program does not pay by that method.</span>');
    const badEmail = await join(joinBody({ accept_terms: 'on', email: 'ada@nowhere' }));
    expect(badEmail.status).toBe(400);
    expect(badEmail.text).toContain('<span class="field-error" id="email-error">Must be an e-mail address.</span>');
    expect(badEmail.text).toContain('<p class="error" role="alert">This form was not saved: see the message beside the field.</p>');

    const bot = joinBody({ accept_terms: 'on', website: 'http://spam.example' });
    expect((await join(bot)).status).toBe(200);
    const good = joinBody({ accept_terms: 'on' });
    expect((await join(good)).status).toBe(200);
    const list = async (email: string) =>
      (await t.request.get('/v1/partners').query({ program_id: program.id, email }).set(org.auth)).body.data;
    expect(await list(bot.email)).toHaveLength(0);
    expect(await list(good.email)).toMatchObject([{ status: 'active' }]);

    const privateProgram = await createProgram(t, org, { type: 'private' });
    expect((await t.request.get(`/p/${privateProgram.subdomain}/join`)).status).toBe(403);
    const refused = await t.request.post(`/p/${privateProgram.subdomain}/join`).type('form').send(joinBody());
    expect(refused.status).toBe(403);
  });

  it('signs in by a link that works once, only in its own program, and not once expired', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const other = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });

    // An unknown address gets the same answer and no e-mail.
    const link = await signInLinkCausedBy(t, partner.email, async () => {
      const unknown = await t.request
        .post(`/p/${program.subdomain}/sign-in`)
        .type('form')
        .send({ email: uniqueEmail('nobody') });
      const known = await t.request.post(`/p/${program.subdomain}/sign-in`).type('form').send({ email: partner.email.toUpperCase() });
      expect(unknown.status).toBe(200);
      expect(known.text).toBe(unknown.text);
    });

    // Opening the link changes nothing (mail scanners open links); another program's portal does not take it.
    expect((await t.request.get(link)).status).toBe(200);
    const token = link.split('/').pop();
    expect((await t.request.post(`/p/${other.subdomain}/sign-in/${token}`)).status).toBe(410);
    const agent = supertest.agent(t.app);
    const used = await agent.post(link);
    expect(used.status).toBe(303);
    expect(used.headers['set-cookie']?.[0]).toMatch(
      new RegExp(`^svc_portal=\\w+; Path=/p/${program.subdomain}; Expires=.+; HttpOnly; SameSite=Lax$`),
    );
    expect((await agent.get(`/p/${program.subdomain}/`)).status).toBe(200);
    // The session opens this program's portal only.
    expect((await agent.get(`/p/${other.subdomain}/`)).headers.location).toBe(`/p/${other.subdomain}/sign-in`);
    // Used once.
    expect((await t.request.post(link)).status).toBe(410);
    expect((await t.request.get(link)).status).toBe(410);

    // Expired: a fresh link made 16 minutes old.
    const fresh = await signInLinkCausedBy(t, partner.email, () =>
      t.request.post(`/p/${program.subdomain}/sign-in`).type('form').send({ email: partner.email }),
    );
    expect(fresh).not.toBe(link);
    await sql`update partner_sign_in_links set expires_at = now() - interval '1 minute' where used_at is null`.execute(t.deps.db);
    expect((await t.request.post(fresh)).status).toBe(410);

    // Signing out ends the session.
    const { agent: signedIn, csrf, base } = await portalAgent(t, program, partner.email);
    expect((await signedIn.post(`${base}/sign-out`).type('form').send({ _csrf: csrf })).status).toBe(303);
    expect((await signedIn.get(`${base}/`)).status).toBe(303);
  });

  it('shows a pending, rejected or suspended partner their state and nothing else', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    for (const [status, note, text] of [
      ['pending', {}, 'being reviewed'],
      ['rejected', { rejection_note: 'Your site is off-topic.' }, 'Your site is off-topic.'],
      ['suspended', { suspension_reason: 'Coupon sites are not allowed.' }, 'Coupon sites are not allowed.'],
    ] as const) {
      const partner = await createPartner(t, org, { program_id: program.id, status, ...note });
      const { agent, csrf, base, home } = await portalAgent(t, program, partner.email);
      expect(home).toContain(text);
      expect(home).not.toContain(`href="/p/${program.subdomain}/referrals"`);
      expect((await agent.get(`${base}/referrals`)).text).toContain(text);
      expect((await agent.post(`${base}/settings`).type('form').send({ _csrf: csrf })).status).toBe(403);
    }
  });

  it('refuses a form without the session token or from another site with the expired-form page', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { website_url: 'https://acme.example' });
    const partner = await createPartner(t, org, { program_id: program.id });
    const { agent, csrf, base } = await portalAgent(t, program, partner.email);
    const stale = [
      await agent.post(`${base}/sign-out`).type('form').send({}),
      await agent.post(`${base}/sign-out`).set('Sec-Fetch-Site', 'cross-site').type('form').send({ _csrf: csrf }),
      await agent
        .post(`${base}/links`)
        .type('form')
        .send({ _csrf: 'x'.repeat(csrf.length), value: 'stale' }),
    ];
    for (const refused of stale) {
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<h1>This form has expired</h1>');
      // Both forms are on home: the way back.
      expect(refused.text).toContain(`<a href="${base}/">Open the page again</a>`);
      // In the program's name and colors.
      expect(refused.text).toContain(`<span class="brand">${program.name}</span>`);
    }
    // Still signed in, and no link was made.
    expect((await agent.get(`${base}/`)).status).toBe(200);
    const links = await t.request.get('/v1/links').set(org.auth).query({ program_id: program.id, partner_id: partner.id });
    expect(links.body.data).toEqual([]);
    const page = await agent.get(`${base}/`);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');

    // Embedded, the way back stays in the embed.
    const made = await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(org.auth).send({});
    const embed = new URL(made.body.data[0].url).pathname;
    const refused = await t.request.post(`${embed}/settings`).type('form').send({ _csrf: 'nope', first_name: 'X' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(`<a href="${embed}/settings">Open the page again</a>`);
  });

  it('answers a form sent after the session ended with a page to sign in again, and a sign-up or sign-in form from another site with the expired-form page', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });
    const { agent, csrf, base } = await portalAgent(t, program, partner.email);
    expect((await agent.post(`${base}/sign-out`).type('form').send({ _csrf: csrf })).status).toBe(303);
    const late = await agent.post(`${base}/settings`).type('form').send({ _csrf: csrf, first_name: 'Late' });
    expect(late.status).toBe(401);
    expect(late.text).toContain('<h1>Signed out</h1>');
    expect(late.text).toContain(`<a href="${base}/sign-in">Sign in again</a>`);
    expect((await getPartner(t, org, partner.id)).first_name).toBe(partner.first_name);

    const email = uniqueEmail('elsewhere');
    for (const [path, body] of [
      ['join', joinBody({ email })],
      ['sign-in', { email: partner.email }],
    ] as const) {
      const res = await t.request.post(`${base}/${path}`).set('Sec-Fetch-Site', 'cross-site').type('form').send(body);
      expect(res.status, path).toBe(403);
      expect(res.text).toContain('<h1>This form has expired</h1>');
      expect(res.text).toContain(`<a href="${base}/${path}">Open the page again</a>`);
    }
    const partners = await t.request.get('/v1/partners').query({ program_id: program.id, email }).set(org.auth);
    expect(partners.body.data).toEqual([]);
  });

  it('opens the portal by an embed token from the API, in a frame, until it expires', async () => {
    const [org, otherOrg] = orgs;
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });
    const made = await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(org.auth).send({ expires_in: 120 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const embed = made.body.data[0];
    expect(embed).toMatchObject({ partner_id: partner.id, program_id: program.id });
    expect(Date.parse(embed.expires_at) - Date.now()).toBeGreaterThan(100_000);
    const path = new URL(embed.url).pathname;
    expect(path).toBe(`/p/${program.subdomain}/embed/${embed.token}`);

    const page = await t.request.get(`${path}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.text).toContain(`href="${path}/referrals"`);
    expect(page.text).not.toContain('Sign out');

    // Not a cookie session, not another program's, and not once expired.
    expect((await t.request.get(`/p/${program.subdomain}/`).set('Cookie', `svc_portal=${embed.token}`)).status).toBe(303);
    await sql`update partner_sessions set expires_at = now() - interval '1 second' where kind = 'embed'`.execute(t.deps.db);
    const expired = await t.request.get(`${path}/`);
    expect(expired.status).toBe(401);
    expect(expired.text).toContain('expired');

    // Bad input and another organization's partner.
    for (const expires_in of [59, 86_401, 'soon']) {
      expect((await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(org.auth).send({ expires_in })).status).toBe(400);
    }
    expect((await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(otherOrg.auth).send({})).status).toBe(404);
  });
});

describe('partner portal throttles (a fresh app: the limits count per client address)', () => {
  const { t, orgs } = useTestApp({ orgs: 1 });

  it('limits sign-in links to 5 per e-mail address in 15 minutes, then answers 429 and sends none', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });
    const ask = () => t.request.post(`/p/${program.subdomain}/sign-in`).type('form').send({ email: partner.email });
    for (let i = 0; i < 5; i++) expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(15 * 60);
    // A page of the portal's that says when to try again, and that the links already sent still work.
    expect(refused.text).toContain('<h1>Too many requests</h1>');
    expect(refused.text).toContain('A link already sent works for 15 minutes. Try again in 15 minutes.');
    expect(refused.text).toContain(`<a href="/p/${program.subdomain}/sign-in">Back to sign-in</a>`);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from partner_sign_in_links where partner_id = ${partner.id}`.execute(t.deps.db);
    expect(rows[0].n).toBe(5);
  });

  it('limits sign-ups to 10 per client address in 15 minutes', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const join = () => t.request.post(`/p/${program.subdomain}/join`).type('form').send(joinBody());
    for (let i = 0; i < 10; i++) expect((await join()).status).toBe(200);
    const refused = await join();
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many sign-ups were sent from this network. Try again in 15 minutes.');
    const partners = await t.request.get('/v1/partners').query({ program_id: program.id, limit: 100 }).set(org.auth);
    expect(partners.body.data).toHaveLength(10);
  });
});
