import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, dashboardAgent } from '../support/dashboard.js';
import { type ApiObject, createProgram, type TestOrg, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';
import { invoice, newWebhookSecret, signStripeEvent, stripeEvent, stripeId } from '../support/stripe-events.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The Integrations tabs (ingest/docs/dashboard.md#integrations): each form does what the API does
 * (the same services), secrets are shown once at the top of their tab and never cached, a refused
 * form comes back with what was typed and the reason beside its field, another organization's ids
 * are 404, members get 403, and every form needs the session's CSRF token. The browser flows are in
 * e2e/dashboard-integrations.spec.ts.
 */

const decode = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;/g, '/')
    .replace(/&#x3D;/g, '=')
    .replace(/&#43;/g, '+');

const stripeApi = (t: TestApp, org: TestOrg, programId: string) =>
  t.request.get(`/v1/programs/${programId}/integrations/stripe`).set(org.auth);

async function endpointsOf(t: TestApp, org: TestOrg): Promise<ApiObject[]> {
  const res = await t.request.get('/v1/webhook-endpoints').query({ limit: 100 }).set(org.auth);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The text of the element with this id on a page (its code block). */
const textOf = (html: string, id: string) => decode(new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1] ?? '');

describe('dashboard integrations: Stripe', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  it('connects Stripe through the form as the API does, shows the URL to paste and never the secret again, and disconnects', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const { agent, csrf } = await dashboardAgent(t, org);
    const page = `/dashboard/integrations/stripe/${program.id}`;

    const before = await agent.get(page);
    expect(before.status).toBe(200);
    expect(before.text).toContain('not connected');
    expect(textOf(before.text, 'stripe-webhook-url')).toBe(`${t.deps.config.publicUrl}/v1/integrations/stripe/webhook/${program.id}`);

    // A value that is no signing secret: 400, the form again with the reason beside the field and
    // the option as ticked; what was typed is not written back (it may be another secret); nothing saved.
    const wrong = await agent.post(page).type('form').send({ webhook_secret: 'sk_live_nope', tax_counts_as_revenue: 'on', _csrf: csrf });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toMatch(/id="webhook_secret-error">Must be the signing secret of a Stripe webhook endpoint \(whsec_…\)\.</);
    expect(wrong.text).toMatch(/name="tax_counts_as_revenue" checked/);
    expect(wrong.text).not.toContain('sk_live_nope');
    expect((await stripeApi(t, org, program.id)).body.data.connected).toBe(false);

    const secret = newWebhookSecret();
    const connected = await agent
      .post(page)
      .type('form')
      .send({ webhook_secret: ` ${secret} `, tax_counts_as_revenue: 'on', _csrf: csrf });
    expect(connected.status).toBe(303);
    expect(connected.headers.location).toBe(`${page}?notice=stripe-connected`);
    expect(connected.headers.location).not.toContain('whsec');

    const api = (await stripeApi(t, org, program.id)).body.data;
    expect(api).toMatchObject({ connected: true, tax_counts_as_revenue: true, webhook_secret: `whsec_…${secret.slice(-4)}` });
    const shown = await agent.get(`${page}?notice=stripe-connected`);
    expect(shown.status).toBe(200);
    expect(shown.headers['cache-control']).toBe('no-store');
    expect(shown.text).toContain('Stripe connected.');
    expect(textOf(shown.text, 'stripe-webhook-url')).toBe(api.webhook_url);
    expect(decode(shown.text)).toContain(api.webhook_secret);
    expect(decode(shown.text)).not.toContain(secret);
    for (const type of api.events_to_enable) expect(shown.text).toContain(`<code>${type}</code>`);
    expect(shown.text).toMatch(/name="tax_counts_as_revenue" checked/);

    // Stripe's events show in the log with what each did: an invoice of a Stripe customer svc
    // does not know yet waits for it; a type svc does not act on is ignored.
    const cus = stripeId('cus');
    for (const event of [
      stripeEvent('invoice.paid', invoice({ customer: cus, subscription: stripeId('sub'), amountPaid: 4900, email: uniqueEmail('c') })),
      stripeEvent('product.created', { id: stripeId('prod'), object: 'product' }),
    ]) {
      const { body, signature } = signStripeEvent(event, secret);
      const res = await t.request
        .post(`/v1/integrations/stripe/webhook/${program.id}`)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', signature)
        .send(body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const apiEvents = (await t.request.get(`/v1/programs/${program.id}/integrations/stripe/events`).set(org.auth)).body.data;
    expect(apiEvents).toHaveLength(2);
    const log = await agent.get(page);
    for (const e of apiEvents) {
      expect(log.text).toContain(e.id);
      expect(log.text).toContain(e.reason);
    }
    const invoiceEvent = apiEvents.find((e: ApiObject) => e.type === 'invoice.paid');
    expect(invoiceEvent.waiting_for).toContain(cus);
    expect(log.text).toContain('badge-waiting');
    expect(log.text).toContain('unhandled_type');
    const onlyWaiting = await agent.get(`${page}?status=ignored&type=invoice.paid`);
    expect(onlyWaiting.text).toContain(invoiceEvent.id);
    expect(onlyWaiting.text).not.toContain(apiEvents.find((e: ApiObject) => e.type === 'product.created').id);

    // Options alone: the secret stays.
    const saved = await agent.post(page).type('form').send({ webhook_secret: '', _csrf: csrf });
    expect(saved.headers.location).toBe(`${page}?notice=stripe-saved`);
    expect((await stripeApi(t, org, program.id)).body.data).toMatchObject({
      connected: true,
      tax_counts_as_revenue: false,
      webhook_secret: api.webhook_secret,
    });

    const gone = await agent.post(`${page}/disconnect`).type('form').send({ _csrf: csrf });
    expect(gone.status).toBe(303);
    expect(gone.headers.location).toBe(`${page}?notice=stripe-disconnected`);
    expect((await stripeApi(t, org, program.id)).body.data.connected).toBe(false);
    // The events stay.
    expect((await agent.get(page)).text).toContain(invoiceEvent.id);
  });

  it('lists each program with its Stripe state on the Stripe tab', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const { agent, csrf } = await dashboardAgent(t, org);
    await agent.post(`/dashboard/integrations/stripe/${program.id}`).type('form').send({ webhook_secret: newWebhookSecret(), _csrf: csrf });
    const page = await agent.get('/dashboard/integrations/stripe');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/dashboard/integrations/stripe/${program.id}"`);
    expect(page.text).toContain(`href="/dashboard/integrations/stripe/${org.program_id}"`);
    expect(page.text).toContain('Manage and event log');
    expect(page.text).toContain('Connect Stripe');
  });

  it("answers 404 for another organization's program, and changes nothing of theirs", async () => {
    const [org, other] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const page = `/dashboard/integrations/stripe/${other.program_id}`;
    expect((await agent.get(page)).status).toBe(404);
    expect((await agent.post(page).type('form').send({ webhook_secret: newWebhookSecret(), _csrf: csrf })).status).toBe(404);
    expect((await agent.post(`${page}/disconnect`).type('form').send({ _csrf: csrf })).status).toBe(404);
    expect((await stripeApi(t, other, other.program_id)).body.data.connected).toBe(false);
  });

  it('is for owners only, and every form needs the CSRF token', async () => {
    const [org] = orgs;
    const page = `/dashboard/integrations/stripe/${org.program_id}`;
    const member = await dashboardAgent(t, org, 'member');
    expect((await member.agent.get(page)).status).toBe(403);
    const byMember = await member.agent.post(page).type('form').send({ webhook_secret: newWebhookSecret(), _csrf: member.csrf });
    expect(byMember.status).toBe(403);
    expect((await member.agent.post(`${page}/disconnect`).type('form').send({ _csrf: member.csrf })).status).toBe(403);

    const owner = await dashboardAgent(t, org);
    const noToken = await owner.agent.post(page).type('form').send({ webhook_secret: newWebhookSecret() });
    const otherSite = await owner.agent
      .post(page)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ webhook_secret: newWebhookSecret(), _csrf: owner.csrf });
    expect(noToken.status).toBe(403);
    expect(otherSite.status).toBe(403);
    expect((await stripeApi(t, org, org.program_id)).body.data.connected).toBe(false);
  });
});

describe('dashboard integrations: webhook endpoints', () => {
  const { t, orgs } = useTestApp({ orgs: 2, env: { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** Adds an endpoint through the form; answers the page (with the secret) and the endpoint as the API lists it. */
  async function addEndpoint(agent: Agent, csrf: string, org: TestOrg, fields: Record<string, unknown>) {
    const before = new Set((await endpointsOf(t, org)).map((e) => e.id));
    const res = await agent
      .post('/dashboard/integrations/webhooks')
      .type('form')
      .send({ _csrf: csrf, ...fields });
    expect(res.status, res.text).toBe(200);
    const added = (await endpointsOf(t, org)).filter((e) => !before.has(e.id));
    expect(added).toHaveLength(1);
    return { res, endpoint: added[0] };
  }

  it('adds an endpoint as the API does, shows its secret once, sends a test and shows the delivery in the log', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org);
    const { agent, csrf } = await dashboardAgent(t, org);

    const { res, endpoint } = await addEndpoint(agent, csrf, org, {
      url: receiver.url,
      description: 'CRM sync',
      events: ['customer.created', 'commission.*'],
      program_id: program.id,
    });
    expect(endpoint).toMatchObject({
      url: receiver.url,
      description: 'CRM sync',
      events: ['customer.created', 'commission.*'],
      program_id: program.id,
      enabled: true,
    });
    expect(res.headers['cache-control']).toBe('no-store');
    const secret = textOf(res.text, 'new-webhook-secret');
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint.redacted_secret.slice(-4)).toBe(secret.slice(-4));

    const page = `/dashboard/integrations/webhooks/${endpoint.id}`;
    const again = await agent.get(page);
    expect(again.status).toBe(200);
    expect(again.text).not.toContain('new-webhook-secret');
    expect(decode(again.text)).not.toContain(secret);
    expect(again.text).toContain('Nothing sent yet.');
    const list = await agent.get('/dashboard/integrations/webhooks');
    expect(list.text).toContain(`href="${page}"`);
    expect(decode(list.text)).not.toContain(secret);

    // Send a test: a delivery of type test, signed with the secret, in the log.
    receiver.secrets = [secret];
    const sent = await agent.post(`${page}/test`).type('form').send({ _csrf: csrf });
    expect(sent.status).toBe(303);
    expect(sent.headers.location).toBe(`${page}?notice=webhook-test-sent`);
    await t.deps.webhooks.drain();
    expect(receiver.events().filter((e) => e.type === 'test' && e.data.endpoint_id === endpoint.id)).toHaveLength(1);
    const deliveries = (await t.request.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`).set(org.auth)).body.data;
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ event_type: 'test', status: 'succeeded', attempt_count: 1 });
    const logged = await agent.get(`${page}?notice=webhook-test-sent`);
    expect(logged.text).toContain('Test event queued');
    expect(logged.text).toContain(deliveries[0].event_id);
    expect(logged.text).toContain('badge-succeeded');
    expect(logged.text).toContain(`HTTP 200 in ${deliveries[0].attempts[0].duration_ms} ms`);
    expect((await agent.get(`${page}?status=failed`)).text).toContain('No delivery matches this filter.');

    // A failing receiver: the attempt's status code and answer are in the log.
    receiver.reply = () => ({ status: 500, body: 'receiver down' });
    await agent.post(`${page}/test`).type('form').send({ _csrf: csrf });
    await t.deps.webhooks.drain();
    receiver.reply = () => ({ status: 200, body: 'ok' });
    const failing = await agent.get(`${page}?status=pending`);
    expect(failing.text).toContain('HTTP 500');
    expect(failing.text).toContain('receiver down');
    expect(failing.text).toContain('next attempt');
  });

  it('edits, pauses, enables, rotates the secret of and deletes an endpoint, as the API sees it', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const { endpoint, res } = await addEndpoint(agent, csrf, org, { url: receiver.url, events: '*', program_id: '' });
    expect(endpoint).toMatchObject({ events: ['*'], program_id: null, description: null });
    const first = textOf(res.text, 'new-webhook-secret');
    const page = `/dashboard/integrations/webhooks/${endpoint.id}`;
    const api = async () => (await t.request.get(`/v1/webhook-endpoints/${endpoint.id}`).set(org.auth)).body.data;

    const edited = await agent
      .post(page)
      .type('form')
      .send({
        url: `${receiver.url}?v=2`,
        description: 'Payouts',
        events: ['payout.paid', 'payout.failed'],
        program_id: org.program_id,
        _csrf: csrf,
      });
    expect(edited.status).toBe(303);
    expect(edited.headers.location).toBe(`${page}?notice=webhook-saved`);
    expect(await api()).toMatchObject({
      url: `${receiver.url}?v=2`,
      description: 'Payouts',
      events: ['payout.paid', 'payout.failed'],
      program_id: org.program_id,
    });
    // Emptied fields clear; no event type at all is refused.
    await agent.post(page).type('form').send({ url: receiver.url, description: '', events: '*', program_id: '', _csrf: csrf });
    expect(await api()).toMatchObject({ url: receiver.url, description: null, events: ['*'], program_id: null });
    // The edit form again, open, with what was typed and the reason beside the event types.
    const noEvents = await agent
      .post(page)
      .type('form')
      .send({ url: `${receiver.url}?typed`, description: 'Kept', _csrf: csrf });
    expect(noEvents.status).toBe(400);
    expect(noEvents.text).toContain('<details class="add" open>');
    expect(noEvents.text).toContain('id="endpoint-events-error">Choose at least 1.<');
    expect(decode(noEvents.text)).toContain(`value="${receiver.url}?typed"`);
    expect(noEvents.text).toContain('value="Kept"');
    expect((await api()).events).toEqual(['*']);

    const paused = await agent.post(`${page}/enabled`).type('form').send({ enabled: 'false', _csrf: csrf });
    expect(paused.headers.location).toBe(`${page}?notice=webhook-paused`);
    expect((await api()).enabled).toBe(false);
    const pausedPage = await agent.get(page);
    expect(pausedPage.text).toContain('badge-paused');
    expect(pausedPage.text).not.toContain('Send a test event</button>');
    const pausedTest = await agent.post(`${page}/test`).type('form').send({ _csrf: csrf });
    expect(pausedTest.status).toBe(400);
    expect(pausedTest.text).toMatch(/<p class="error" role="alert">Webhook endpoint '[^']+' is disabled; enable it first/);
    await agent.post(`${page}/enabled`).type('form').send({ enabled: 'true', _csrf: csrf });
    expect((await api()).enabled).toBe(true);

    const rotated = await agent.post(`${page}/rotate-secret`).type('form').send({ _csrf: csrf });
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const second = textOf(rotated.text, 'new-webhook-secret');
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    const after = await api();
    expect(after.redacted_secret.slice(-4)).toBe(second.slice(-4));
    expect(after.previous_secret_expires_at).not.toBeNull();
    expect(rotated.text).toContain('The previous secret keeps signing beside it until');

    const deleted = await agent.post(`${page}/delete`).type('form').send({ _csrf: csrf });
    expect(deleted.headers.location).toBe('/dashboard/integrations/webhooks?notice=webhook-deleted');
    expect((await t.request.get(`/v1/webhook-endpoints/${endpoint.id}`).set(org.auth)).status).toBe(404);
    expect((await agent.get(page)).status).toBe(404);
  });

  it("answers 404 for another organization's endpoint and program, and changes nothing of theirs", async () => {
    const [org, other] = orgs;
    const theirs = (
      await t.request
        .post('/v1/webhook-endpoints')
        .set(other.auth)
        .send({ url: receiver.url, events: ['partner.*'] })
    ).body.data[0];
    const { agent, csrf } = await dashboardAgent(t, org);
    const page = `/dashboard/integrations/webhooks/${theirs.id}`;
    expect((await agent.get(page)).status).toBe(404);
    for (const [path, fields] of [
      [page, { url: 'https://example.com/mine', events: '*' }],
      [`${page}/enabled`, { enabled: 'false' }],
      [`${page}/test`, {}],
      [`${page}/rotate-secret`, {}],
      [`${page}/delete`, {}],
    ] as const) {
      const res = await agent
        .post(path)
        .type('form')
        .send({ ...fields, _csrf: csrf });
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('whsec_');
    }
    const unchanged = (await t.request.get(`/v1/webhook-endpoints/${theirs.id}`).set(other.auth)).body.data;
    expect(unchanged).toMatchObject({ url: receiver.url, enabled: true, events: ['partner.*'], redacted_secret: theirs.redacted_secret });
    expect((await t.request.get(`/v1/webhook-endpoints/${theirs.id}/deliveries`).set(other.auth)).body.total_count).toBe(0);

    // Their program as a filter of one of ours: 404, nothing saved.
    const count = (await endpointsOf(t, org)).length;
    const filter = await agent
      .post('/dashboard/integrations/webhooks')
      .type('form')
      .send({ url: receiver.url, events: '*', program_id: other.program_id, _csrf: csrf });
    expect(filter.status).toBe(404);
    expect(await endpointsOf(t, org)).toHaveLength(count);
  });

  it('is for owners only, and every form needs the CSRF token', async () => {
    const [org] = orgs;
    const owner = await dashboardAgent(t, org);
    const { endpoint } = await addEndpoint(owner.agent, owner.csrf, org, { url: receiver.url, events: '*' });
    const page = `/dashboard/integrations/webhooks/${endpoint.id}`;
    const count = (await endpointsOf(t, org)).length;

    const member = await dashboardAgent(t, org, 'member');
    expect((await member.agent.get(page)).status).toBe(403);
    for (const [path, fields] of [
      ['/dashboard/integrations/webhooks', { url: receiver.url, events: '*' }],
      [`${page}/rotate-secret`, {}],
      [`${page}/test`, {}],
      [`${page}/delete`, {}],
    ] as const) {
      const res = await member.agent
        .post(path)
        .type('form')
        .send({ ...fields, _csrf: member.csrf });
      expect(res.status, path).toBe(403);
      expect(res.text).not.toContain('whsec_');
    }

    const noToken = await owner.agent.post('/dashboard/integrations/webhooks').type('form').send({ url: receiver.url, events: '*' });
    expect(noToken.status).toBe(403);
    const rotateNoToken = await owner.agent.post(`${page}/rotate-secret`).type('form').send({});
    expect(rotateNoToken.status).toBe(403);
    const deleteOtherSite = await owner.agent
      .post(`${page}/delete`)
      .set('Origin', 'http://evil.example')
      .type('form')
      .send({ _csrf: owner.csrf });
    expect(deleteOtherSite.status).toBe(403);
    expect(await endpointsOf(t, org)).toHaveLength(count);
    expect((await t.request.get(`/v1/webhook-endpoints/${endpoint.id}`).set(org.auth)).body.data.redacted_secret).toBe(
      endpoint.redacted_secret,
    );
  });
});

describe('dashboard integrations: where webhooks may go', () => {
  // The defaults: public https addresses only (SSRF).
  const { t, orgs } = useTestApp({ orgs: 1 });

  it('refuses a private, loopback or plain http address with the form again, what was typed kept, and saves nothing', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://10.1.2.3/hooks',
      'https://localhost/hooks',
      'https://[::1]/x',
      'http://example.com/hooks',
    ]) {
      const res = await agent
        .post('/dashboard/integrations/webhooks')
        .type('form')
        .send({ url, description: 'CRM', events: ['partner.*', 'payout.paid'], program_id: org.program_id, _csrf: csrf });
      expect(res.status, url).toBe(400);
      // The Webhooks tab, its add form open, the reason beside the URL in words, every field as it was sent.
      expect(res.text).toContain('aria-current="page">Webhooks</a>');
      expect(res.text).toMatch(/id="new-endpoint-url-error">Must (be an https:\/\/ URL|not point at)/);
      expect(res.text).toMatch(/id="new-endpoint-url"[^>]*aria-invalid="true"/);
      expect(decode(res.text)).toContain(`value="${url}"`);
      expect(res.text).toContain('value="CRM"');
      expect(res.text).toContain('value="partner.*" checked');
      expect(res.text).toContain('value="payout.paid" checked');
      expect(res.text).not.toContain('value="*" checked');
      expect(res.text).toMatch(new RegExp(`value="${org.program_id}" selected`));
      expect(res.text).not.toContain('whsec_');
    }
    expect(await endpointsOf(t, org)).toHaveLength(0);

    // A public address is taken, and changing it to a private one is refused.
    const ok = await agent
      .post('/dashboard/integrations/webhooks')
      .type('form')
      .send({ url: 'https://example.com/hooks', events: '*', _csrf: csrf });
    expect(ok.status).toBe(200);
    const [endpoint] = await endpointsOf(t, org);
    const moved = await agent
      .post(`/dashboard/integrations/webhooks/${endpoint.id}`)
      .type('form')
      .send({ url: 'https://192.168.1.1/hooks', events: '*', _csrf: csrf });
    expect(moved.status).toBe(400);
    expect((await endpointsOf(t, org))[0].url).toBe('https://example.com/hooks');
  });
});

describe('dashboard integrations: tabs, API keys and users', () => {
  const { t, orgs } = useTestApp({ orgs: 1 });
  const TABS = ['script-tag', 'api-keys', 'stripe', 'webhooks', 'users'];

  /** Where in the page a piece of it starts (-1 when absent). */
  const at = (html: string, piece: string) => html.indexOf(piece);

  it('is five tabs, each a page of its own with the tabs marking it; the old address opens the first; members get 403 on each', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const old = await agent.get('/dashboard/integrations');
    expect(old.status).toBe(303);
    expect(old.headers.location).toBe('/dashboard/integrations/script-tag');
    for (const tab of TABS) {
      const res = await agent.get(`/dashboard/integrations/${tab}`);
      expect(res.status, tab).toBe(200);
      expect(res.text).toContain('<nav class="tabs" aria-label="Integrations">');
      expect(res.text.match(/aria-current="page"/g), tab).toHaveLength(2); // the main navigation's section, and the tab
      expect(res.text).toMatch(new RegExp(`<a class="tab" href="/dashboard/integrations/${tab}" aria-current="page">`));
      // The dashboard's one small script (dashboard.test.ts weighs it), nothing inline.
      expect([...res.text.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
        expect.stringMatching(/^<script defer src="\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]{12}">$/),
      ]);
    }
    const member = await dashboardAgent(t, org, 'member');
    for (const path of ['', ...TABS.map((tab) => `/${tab}`)]) {
      expect((await member.agent.get(`/dashboard/integrations${path}`)).status, path).toBe(403);
    }
  });

  it('shows a new API key once, at the top of its tab, and refuses a bad name with the form again', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const keys = async () => (await t.request.get('/v1/api-keys').query({ limit: 100 }).set(org.auth)).body.data as ApiObject[];
    const before = (await keys()).length;

    const made = await agent.post('/dashboard/integrations/api-keys').type('form').send({ name: 'Billing server', _csrf: csrf });
    expect(made.status).toBe(200);
    expect(made.headers['cache-control']).toBe('no-store');
    const secret = textOf(made.text, 'new-secret');
    expect(secret).toMatch(/^sk_/);
    // Above everything else of the tab: after the tabs, before the list of keys and the form.
    expect(at(made.text, 'id="new-secret"')).toBeGreaterThan(at(made.text, '<nav class="tabs"'));
    expect(at(made.text, 'id="new-secret"')).toBeLessThan(at(made.text, '<table'));
    expect((await t.request.get('/v1/programs').set('Authorization', `Bearer ${secret}`)).status).toBe(200);
    const again = await agent.get('/dashboard/integrations/api-keys');
    expect(again.text).not.toContain('new-secret');
    expect(again.text).not.toContain(secret);
    expect(again.text).toContain('Billing server');

    const long = 'k'.repeat(101);
    const refused = await agent.post('/dashboard/integrations/api-keys').type('form').send({ name: long, _csrf: csrf });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('id="key-name-error">Must be at most 100 characters.<');
    expect(refused.text).toContain(`value="${long}"`);
    expect(refused.text).not.toContain('new-secret');
    expect(await keys()).toHaveLength(before + 1);
  });

  it("shows a new user's password once, at the top of its tab, and refuses an e-mail that already signs in", async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const email = uniqueEmail('new-user');
    const made = await agent.post('/dashboard/integrations/users').type('form').send({ email, name: 'Nora', role: 'owner', _csrf: csrf });
    expect(made.status).toBe(200);
    expect(made.headers['cache-control']).toBe('no-store');
    expect(textOf(made.text, 'new-password')).toMatch(/\S{12,}/);
    expect(at(made.text, 'id="new-password"')).toBeGreaterThan(at(made.text, '<nav class="tabs"'));
    expect(at(made.text, 'id="new-password"')).toBeLessThan(at(made.text, '<table'));
    expect(made.text).toContain(`<th scope="row">${email}</th>`);

    const twice = await agent
      .post('/dashboard/integrations/users')
      .type('form')
      .send({ email: email.toUpperCase(), name: 'Nora again', role: 'owner', _csrf: csrf });
    expect(twice.status).toBe(409);
    expect(twice.text).toMatch(/id="user-email-error">A user with the e-mail [^<]+ already exists\.</);
    expect(twice.text).toContain(`value="${email.toUpperCase()}"`);
    expect(twice.text).toContain('value="Nora again"');
    expect(twice.text).toContain('<option value="owner" selected>');
    expect(twice.text).not.toContain('new-password');
    const rows = await t.deps.db.selectFrom('users').select('id').where(sql`lower(email)`, '=', email.toLowerCase()).execute();
    expect(rows).toHaveLength(1);
  });
});
