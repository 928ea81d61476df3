import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrganization } from '../../src/bootstrap.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { queueEmail } from '../../src/mail/outbox.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { listenForMetrics } from '../../src/metrics/metrics-server.js';
import { startApprovalJob } from '../../src/resources/commissions/approval-job.js';
import { createLink, createPartner } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { openTestStorage, STORAGE } from '../support/harness.js';
import { newWebhookSecret, signStripeEvent, stripeCustomer, stripeEvent } from '../support/stripe-events.js';

/**
 * The Prometheus endpoint (ingest/docs/metrics.md): served on SVC_METRICS_PORT, never on the
 * public port; the figures move with a scripted cycle through the real HTTP API.
 */

/** Every series of an exposition, keyed exactly as written (`name{label="v",…}`), with its value. */
function seriesOf(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) series.set(m[1], Number(m[2]));
  }
  return series;
}

async function scrape(port: number, path = '/metrics'): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('GET /metrics on SVC_METRICS_PORT', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({
    orgs: 1,
    env: {
      SVC_METRICS_PORT: '0',
      SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
      SVC_PUBLIC_URL: 'https://svc.example.com',
      SMTP_URL: 'smtp://127.0.0.1:1',
    },
  });
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const metrics = t.deps.metrics;
    if (!metrics) throw new Error('SVC_METRICS_PORT is set: the app must have metrics');
    server = await listenForMetrics(metrics, 0, '127.0.0.1', pino({ level: 'silent' }));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

  it('serves nothing on the public port, and only GET /metrics on its own', async () => {
    expect((await t.request.get('/metrics')).status).toBe(404);
    expect((await scrape(port, '/')).status).toBe(404);
    expect((await scrape(port, '/v1/openapi.json')).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('moves with a cycle through the API: clicks, signup, payment, webhook backlog, e-mails, Stripe, approvals', async () => {
    const api = t.request;
    // A webhook endpoint that refuses connections (a closed port) first: every later change's delivery stays pending.
    const endpoint = await api.post('/v1/webhook-endpoints').set(org.auth).send({ url: 'http://127.0.0.1:1/svc' });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    // A welcome e-mail: SMTP_URL points at a closed port, so it stays in the outbox.
    const alice = await createPartner(t, org, { first_name: 'Alice', send_welcome_email: true });
    const link = await createLink(t, org, alice);

    const tracked = await api
      .post('/v1/track/click')
      .set('Content-Type', 'text/plain')
      .set('User-Agent', UA)
      .send(JSON.stringify({ key: org.public_key, param: link.param, value: link.value }));
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    const signup = await api
      .post('/v1/track/signup')
      .set('Content-Type', 'text/plain')
      .set('User-Agent', UA)
      .send(JSON.stringify({ key: org.public_key, click_id: tracked.body.data.click_id, identifier: 'carol@example.com' }));
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    const paid = await api
      .post('/v1/transactions')
      .set(org.auth)
      .send({ amount: 4900, customer_id: signup.body.data.customer_id, charge_id: 'ch_metrics_1' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect((await api.get(`/v1/partners/${alice.id}`).set(org.auth)).status).toBe(200);
    // The portal's routes sit in routers mounted under /p/:subdomain: the subdomain and the token are named, not written.
    const { subdomain } = (await api.get(`/v1/programs/${org.program_id}`).set(org.auth)).body.data;
    const token = `tk${Date.now()}`;
    const portalPages = [await api.get(`/p/${subdomain}/sign-in`), await api.get(`/p/${subdomain}/sign-in/${token}`)];

    const secret = newWebhookSecret();
    expect(
      (await api.put(`/v1/programs/${org.program_id}/integrations/stripe`).set(org.auth).send({ webhook_secret: secret })).status,
    ).toBe(200);
    const signed = signStripeEvent(stripeEvent('customer.created', stripeCustomer({})), secret);
    for (let i = 0; i < 2; i++) {
      const res = await api
        .post(`/v1/integrations/stripe/webhook/${org.program_id}`)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', signed.signature)
        .send(signed.body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    // An event whose handling fails (its record cannot be written) is answered 5xx and counted as a fault.
    await sql`create function refuse_stripe_event() returns trigger language plpgsql as $$
                begin raise exception 'stripe_events refused by the test'; end $$`.execute(t.storage.db);
    await sql`create trigger refuse_stripe_event before insert on stripe_events for each row execute function refuse_stripe_event()`.execute(
      t.storage.db,
    );
    try {
      const refused = signStripeEvent(stripeEvent('customer.created', stripeCustomer({})), secret);
      const faulted = await api
        .post(`/v1/integrations/stripe/webhook/${org.program_id}`)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', refused.signature)
        .send(refused.body);
      expect(faulted.status).toBeGreaterThanOrEqual(500);
    } finally {
      await sql`drop trigger refuse_stripe_event on stripe_events`.execute(t.storage.db);
      await sql`drop function refuse_stripe_event()`.execute(t.storage.db);
    }
    // One e-mail given up (every attempt used), beside the waiting welcome one.
    await queueEmail(t.storage.db, { organizationId: org.organization_id, kind: 'test', to: 'x@example.com', subject: 's', text: 't' });
    await t.storage.db.updateTable('email_outbox').set({ attempts: 8 }).where('kind', '=', 'test').execute();
    // The commission falls due; a run of the approval job (as openRuntime starts it) approves it.
    await t.storage.db
      .updateTable('commissions')
      .set({ scheduled_approval_date: new Date(Date.now() - 1000) })
      .execute();
    const job = startApprovalJob(t.storage.db, pino({ level: 'silent' }), 3600, t.deps.metrics?.approvalRan);
    expect(await job.runNow()).toBe(1);
    await job.close();

    await t.deps.webhooks.drain();

    const { status, text, type } = await scrape(port);
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    const s = seriesOf(text);

    expect(s.get('svc_clicks_recorded_total')).toBe(1);
    expect(s.get('svc_click_batch_size_count')).toBe(1);
    expect(s.get('svc_click_batch_size_bucket{le="1"}')).toBe(1);
    expect(s.get('svc_http_request_duration_seconds_count{method="POST",route="/v1/track/click",status="200"}')).toBe(1);
    expect(s.get('svc_http_request_duration_seconds_count{method="POST",route="/v1/transactions",status="201"}')).toBe(1);
    expect(s.get('svc_http_request_duration_seconds_count{method="GET",route="/v1/partners/:id",status="200"}')).toBe(1);
    expect(s.get('svc_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(s.get('svc_stripe_events_total{outcome="ignored"}')).toBe(1);
    expect(s.get('svc_stripe_events_total{outcome="duplicate"}')).toBe(1);
    expect(s.get('svc_stripe_events_total{outcome="fault"}')).toBe(1);
    expect(
      s.get(`svc_http_request_duration_seconds_count{method="GET",route="/p/:subdomain/sign-in",status="${portalPages[0].status}"}`),
    ).toBe(1);
    expect(
      s.get(`svc_http_request_duration_seconds_count{method="GET",route="/p/:subdomain/sign-in/:token",status="${portalPages[1].status}"}`),
    ).toBe(1);
    // Route labels are templates: no id of this test appears in the exposition.
    for (const id of [alice.id, org.program_id, signup.body.data.customer_id, endpoint.body.data[0].id, subdomain, token]) {
      expect(text).not.toContain(id);
    }

    // The backlogs are what SQL holds: every change's delivery to the refusing endpoint, the
    // e-mails to Alice (welcome, new customer, commission) that SMTP refused, and the given-up one.
    const count = async (table: 'webhook_deliveries' | 'email_outbox', where: (q: any) => any) =>
      Number((await where(t.storage.db.selectFrom(table).select((e) => e.fn.countAll().as('n'))).executeTakeFirstOrThrow()).n);
    const pending = await count('webhook_deliveries', (q) => q.where('status', '=', 'pending'));
    const unsent = await count('email_outbox', (q) => q.where('sent_at', 'is', null));
    expect(pending).toBeGreaterThanOrEqual(4);
    expect(s.get('svc_webhook_deliveries{status="pending"}')).toBe(pending);
    expect(s.get('svc_webhook_deliveries{status="failed"}')).toBe(0);
    expect(s.get('svc_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(unsent).toBeGreaterThanOrEqual(2);
    expect(s.get('svc_emails{state="waiting"}')).toBe(unsent - 1);
    expect(s.get('svc_emails{state="failed"}')).toBe(1);
    expect(s.get('svc_backlog_read_failed')).toBe(0);
    expect(s.get('svc_approval_last_run_approved')).toBe(1);
    expect(s.get('svc_approval_last_run_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);

    expect(s.get(`svc_shared_store_up{kind="${STORAGE === 'embedded' ? 'memory' : 'redis'}"}`)).toBe(1);
    if (STORAGE === 'postgres') {
      expect(s.get('svc_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
      expect(s.get('svc_db_pool_waiting')).toBe(0);
    } else {
      expect(text).not.toContain('svc_db_pool');
    }
    // prom-client's default metrics, under their standard names.
    expect(s.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(s.has('process_resident_memory_bytes')).toBe(true);
  });
});

describe('the backlogs behind /metrics', () => {
  it('are read from SQL at most every 10 s, and a failed read keeps the last values and says so', async () => {
    const storage = await openTestStorage();
    const store = storage.openStore();
    let clock = 1_000_000;
    const metrics = createMetrics({ db: storage.db, store, now: () => clock });
    const read = async () => seriesOf(await metrics.registry.metrics());
    const waiting = async () => (await read()).get('svc_emails{state="waiting"}');
    const org = await initOrganization(storage.db, { org: 'Metrics', program: 'Metrics' });
    try {
      expect(await waiting()).toBe(0);
      await queueEmail(storage.db, { organizationId: org.organization_id, kind: 'test', to: 'x@example.com', subject: 's', text: 't' });
      // Scrapes hammering the port within the 10 s are served the cached reading.
      const scrapes = await Promise.all(Array.from({ length: 20 }, () => read()));
      expect(scrapes.map((s) => s.get('svc_emails{state="waiting"}'))).toEqual(Array(20).fill(0));
      clock += 10_000;
      expect(await waiting()).toBe(1);
      expect((await read()).get('svc_backlog_read_timestamp_seconds')).toBe(clock / 1000);
    } finally {
      // The database shut down under the metrics (closing the storage alone may keep it for the next file).
      await storage.db.destroy();
      await storage.close();
    }
    // SQL is gone: the scrape still answers, with the last values and the failure flagged.
    clock += 10_000;
    const after = await read();
    expect(after.get('svc_backlog_read_failed')).toBe(1);
    expect(after.get('svc_emails{state="waiting"}')).toBe(1);
    expect(after.get('svc_backlog_read_timestamp_seconds')).toBe((clock - 10_000) / 1000);
  });
});

describe('SVC_METRICS_PORT', () => {
  it('is off unset, a port when set, and refused when it is not a port or is the public one', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ SVC_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    for (const env of [{ SVC_METRICS_PORT: 'x' }, { SVC_METRICS_PORT: '70000' }, { PORT: '9000', SVC_METRICS_PORT: '9000' }]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/SVC_METRICS_PORT/);
    }
  });
});
