import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { dashboardUser, PASSWORD } from '../support/dashboard.js';
import { createPartner, createProgram, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';
import { queuedTo } from '../support/outbox.js';
import { csrfOf } from '../support/portal.js';

/**
 * Every absolute URL svc writes comes from SVC_PUBLIC_URL (README.md#configuration), never from
 * the request: a forged Host or X-Forwarded-Host must not reach an e-mail (a sign-in link
 * e-mailed to a partner would hand their account to whoever chose the host), an API answer or a
 * page. The app trusts a proxy here, as behind a load balancer, so that Express would read the
 * forwarded headers if anything still asked it for the host.
 */

const PUBLIC = 'https://svc.example.com';
const FORGED = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'http' };

/** Every absolute URL in a text, and the e-mails queued to an address (text and HTML bodies). */
const urlsIn = (text: string) => [...text.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
async function emailsTo(t: TestApp, to: string): Promise<string[]> {
  return (await queuedTo(t, to)).map((r) => `${r.text_body}\n${r.html_body ?? ''}`);
}

/** No trace of the forged host, and each link that names svc names its public address. */
function expectOnlyPublicLinks(text: string, expected: RegExp) {
  expect(text).not.toContain('evil.example');
  const links = urlsIn(text).filter((u) => expected.test(u));
  expect(links.length, text).toBeGreaterThan(0);
  for (const link of links) expect(new URL(link).origin).toBe(PUBLIC);
}

describe('links under a forged Host and X-Forwarded-Host', () => {
  const { t, orgs } = useTestApp({ orgs: 1, env: { SVC_PUBLIC_URL: `${PUBLIC}/`, SVC_TRUST_PROXY: 'true' } });

  it('the portal e-mails a sign-in link to svc, and refuses a form whose Origin is not svc', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { type: 'public' });
    const partner = await createPartner(t, org, { program_id: program.id, email: uniqueEmail('victim') });
    const signIn = (headers: Record<string, string>) =>
      t.request.post(`/p/${program.subdomain}/sign-in`).set(headers).type('form').send({ email: partner.email });

    const fromEvil = await signIn({ ...FORGED, Origin: 'http://evil.example' });
    expect(fromEvil.status).toBe(403);
    expect(await emailsTo(t, partner.email)).toEqual([]);

    for (const headers of [FORGED, { ...FORGED, Origin: PUBLIC }]) {
      const res = await signIn(headers);
      expect(res.status, res.text).toBe(200);
      expect(res.text).not.toContain('evil.example');
    }
    const emails = await emailsTo(t, partner.email);
    expect(emails).toHaveLength(2);
    for (const email of emails) expectOnlyPublicLinks(email, /\/sign-in\//);
  });

  it('the join form e-mails the portal at svc, to a new partner and to one who is a partner already', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { type: 'public' });
    const existing = await createPartner(t, org, { program_id: program.id, email: uniqueEmail('existing') });
    const newcomer = uniqueEmail('newcomer');
    for (const email of [newcomer, existing.email]) {
      const res = await t.request
        .post(`/p/${program.subdomain}/join`)
        .set(FORGED)
        .type('form')
        .send({ first_name: 'Ada', last_name: 'Lovelace', email, country_code: 'GB', payout_method: 'paypal' });
      expect(res.status, res.text).toBe(200);
      const emails = await emailsTo(t, email);
      expect(emails).toHaveLength(1);
      expectOnlyPublicLinks(emails[0], new RegExp(`/p/${program.subdomain}`));
    }
  });

  it('API answers: the embed token URL and the Stripe webhook URL', async () => {
    const [org] = orgs;
    const partner = await createPartner(t, org);
    const embed = await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(org.auth).set(FORGED).send({});
    expect(embed.status, embed.text).toBe(201);
    expectOnlyPublicLinks(JSON.stringify(embed.body), /\/embed\//);

    const stripePath = `/v1/programs/${org.program_id}/integrations/stripe`;
    const connected = await t.request.put(stripePath).set(org.auth).set(FORGED).send({ webhook_secret: 'whsec_0123456789abcdef' });
    expect(connected.status, connected.text).toBe(200);
    expect(connected.body.data.webhook_url).toBe(`${PUBLIC}/v1/integrations/stripe/webhook/${org.program_id}`);
    const retrieved = await t.request.get(stripePath).set(org.auth).set(FORGED);
    expect(retrieved.body.data.webhook_url).toBe(connected.body.data.webhook_url);
  });

  it('dashboard pages: the script tag, the portal address and the Stripe endpoint; forms from another Origin are refused', async () => {
    const [org] = orgs;
    const email = await dashboardUser(t, org);
    const agent = supertest.agent(t.app);
    const evilSignIn = await agent
      .post('/dashboard/sign-in')
      .set({ ...FORGED, Origin: 'http://evil.example' })
      .type('form')
      .send({ email, password: PASSWORD });
    expect(evilSignIn.status).toBe(403);
    const signedIn = await agent
      .post('/dashboard/sign-in')
      .set({ ...FORGED, Origin: PUBLIC })
      .type('form')
      .send({ email, password: PASSWORD });
    expect(signedIn.status, signedIn.text).toBe(303);

    const page = (path: string) => agent.get(path).set(FORGED);
    const overview = await page(`/dashboard/programs/${org.program_id}`);
    expectOnlyPublicLinks(overview.text, /\/svc\.js/);
    expectOnlyPublicLinks((await page(`/dashboard/programs/${org.program_id}/settings`)).text, /\/p\//);
    expectOnlyPublicLinks((await page('/dashboard/integrations/script-tag')).text, /\/svc\.js/);
    expectOnlyPublicLinks((await page(`/dashboard/integrations/stripe/${org.program_id}`)).text, /\/integrations\/stripe\/webhook\//);

    const csrf = csrfOf(overview.text);
    const post = (origin: string) =>
      agent
        .post('/dashboard/integrations/api-keys')
        .set({ ...FORGED, Origin: origin })
        .type('form')
        .send({ _csrf: csrf, name: 'ci' });
    expect((await post('http://evil.example')).status).toBe(403);
    const created = await post(PUBLIC);
    expect(created.status).toBe(200);
    expect(created.text).toMatch(/sk_[0-9A-Za-z]+/); // the new key, shown once
  });
});

describe('SVC_PUBLIC_URL', () => {
  it('defaults to localhost and the port, and keeps only the origin of what is set', () => {
    expect(loadConfig({ PORT: '9000' })).toMatchObject({ publicUrl: 'http://localhost:9000', publicUrlSet: false });
    expect(loadConfig({ SVC_PUBLIC_URL: 'https://SVC.Example.com:443/' })).toMatchObject({
      publicUrl: 'https://svc.example.com',
      publicUrlSet: true,
    });
  });

  it('is required where a wrong address would reach people: e-mails through SMTP, or production', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtps://u:p@smtp.example.com' })).toThrow(/Set SVC_PUBLIC_URL .* SMTP_URL/);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/Set SVC_PUBLIC_URL .* production/);
    // Behind the proxy that https needs (ingest/test/unit/proxy-setup.test.ts).
    expect(loadConfig({ NODE_ENV: 'production', SVC_PUBLIC_URL: PUBLIC, SVC_TRUST_PROXY: '127.0.0.1' }).publicUrl).toBe(PUBLIC);
  });

  it('refuses what is not an origin', () => {
    for (const bad of [
      'svc.example.com',
      'ftp://svc.example.com',
      'https://svc.example.com/svc',
      'https://u:p@svc.example.com',
      'https://svc.example.com/?a=1',
    ]) {
      expect(() => loadConfig({ SVC_PUBLIC_URL: bad }), bad).toThrow(ConfigError);
    }
  });
});
