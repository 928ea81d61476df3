import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  claimDueDeliveries,
  fanOutEvents,
  recordAttempts,
  releaseClaims,
  renewClaims,
} from '../../src/resources/webhook-endpoints/webhook-endpoints.repository.js';
import { createWebhookWorker, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/resources/webhook-endpoints/webhook-worker.js';
import { type ApiObject, createCustomer, createPartner, createTransaction, type TestOrg } from '../support/factories.js';
import { resource, useTestApp } from '../support/fixture.js';
import { STORAGE } from '../support/harness.js';
import { type Reply, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Webhook delivery (ingest/docs/webhooks.md) to a real HTTP receiver that verifies every
 * signature with the official `standardwebhooks` package. The test app's worker runs only when a
 * test drains it, and its retry schedule is followed on a fake clock (Date only).
 */

const TIMEOUT_MS = 400;

describe('webhook delivery', () => {
  // Captured so that a test can look for secrets in everything logged.
  const logged: string[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _enc, done) {
        logged.push(String(chunk));
        done();
      },
    }),
  );
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2, env: { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' }, logger, webhooks: { timeoutMs: TIMEOUT_MS } });
  const endpoints = () => resource(t, '/v1/webhook-endpoints', org);
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await receiver.close();
    // Endpoints of earlier tests would receive this test's events too.
    for (const who of [org, other]) {
      const list = await endpoints().list({ limit: 100 }, who);
      for (const e of list.body.data) await endpoints().del(e.id, who);
    }
  });

  /** An endpoint of the receiver; the receiver checks signatures with its secret. */
  async function subscribe(body: Record<string, unknown> = {}, who: TestOrg = org): Promise<ApiObject> {
    const res = await endpoints().post({ url: receiver.url, ...body }, who);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    receiver.secrets.push(res.body.data[0].secret);
    return res.body.data[0];
  }
  const drain = () => t.deps.webhooks.drain();
  const deliveriesOf = async (endpoint: ApiObject, query: Record<string, unknown> = {}) => {
    const res = await t.request
      .get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)
      .set(org.auth)
      .query({ limit: 100, ...query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as ApiObject[];
  };
  /** The event of that type about that object (events are listed newest first; a fake clock may have made some "newer"). */
  const eventAbout = async (type: string, objectId: string) => {
    const res = await t.request.get('/v1/events').set(org.auth).query({ type, limit: 100 });
    const event = (res.body.data as ApiObject[]).find((e) => e.data.id === objectId);
    expect(event, `${type} of ${objectId}`).toBeDefined();
    return event!;
  };
  /** Answers with each reply in turn, then with the last one for good. */
  const replies = (...list: Reply[]) => {
    let i = 0;
    receiver.reply = () => list[Math.min(i++, list.length - 1)];
  };
  const clock = () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    return { advance: (ms: number) => vi.setSystemTime(Date.now() + ms) };
  };

  it('posts every event once, signed, with the body /v1/events answers and the Standard Webhooks headers', async () => {
    const endpoint = await subscribe();
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    await createTransaction(t, org, customer, { amount: 5000 });
    await drain();

    const listed = (await t.request.get('/v1/events').set(org.auth).query({ limit: 100, order: 'asc' })).body.data as ApiObject[];
    const ours = listed.filter((e) => [partner.id, customer.id].includes(e.data.id) || e.data.customer_id === customer.id);
    expect(ours.map((e) => e.type).sort()).toEqual(
      ['commission.created', 'customer.created', 'customer.updated', 'partner.created', 'transaction.created'].sort(),
    );
    expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
    expect(receiver.received.map((r) => r.id).sort()).toEqual(ours.map((e) => e.id).sort());
    // In the order they happened (events of one statement share a millisecond, in no order among them).
    const times = receiver.events().map((e) => e.created_at);
    expect(times).toEqual([...times].sort());
    const byId = new Map(ours.map((e) => [e.id, e]));
    for (const r of receiver.received) {
      expect(JSON.parse(r.body)).toEqual(byId.get(r.id));
      expect(r.headers['content-type']).toBe('application/json');
      expect(Number(r.timestamp)).toBeCloseTo(Date.now() / 1000, -2);
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }

    const log = await deliveriesOf(endpoint);
    expect(log).toHaveLength(ours.length);
    expect(log[0]).toEqual({
      id: expect.stringMatching(/^wd_\w{24}$/),
      endpoint_id: endpoint.id,
      event_id: expect.any(String),
      event_type: expect.any(String),
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      attempts: [
        {
          attempt: 1,
          status: 'succeeded',
          response_status: 200,
          response_body: 'ok',
          duration_ms: expect.any(Number),
          error: null,
          created_at: expect.any(String),
        },
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // Nothing is sent twice.
    await drain();
    expect(receiver.received).toHaveLength(ours.length);
  });

  it('sends an endpoint only the types and the program it asked for', async () => {
    await subscribe({ events: ['commission.*', 'customer.created'] });
    const otherProgram = (await t.request.post('/v1/programs').set(org.auth).send({ name: 'Other program' })).body.data[0];
    await subscribe({ events: ['partner.created'], program_id: otherProgram.id });
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    await createTransaction(t, org, customer);
    await drain();
    expect(
      receiver
        .events()
        .map((e) => e.type)
        .sort(),
    ).toEqual(['commission.created', 'customer.created']);
  });

  it('tries a failed delivery again on the schedule: a 500, then a 200', async () => {
    const time = clock();
    const endpoint = await subscribe();
    replies({ status: 500, body: 'down for a moment' }, { status: 200 });
    await createPartner(t, org);
    await drain();
    let [delivery] = await deliveriesOf(endpoint);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'failed', response_status: 500, error: 'HTTP 500' })]);
    expect(Date.parse(delivery.next_attempt_at) - Date.now()).toBeGreaterThan(RETRY_DELAYS_MS[0] - 1000);

    // Not due yet: nothing happens.
    await drain();
    expect(receiver.received).toHaveLength(1);
    time.advance(RETRY_DELAYS_MS[0] + 1);
    await drain();
    [delivery] = await deliveriesOf(endpoint);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2, next_attempt_at: null });
    expect(delivery.attempts.map((a: ApiObject) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    // The same event, with the same id and body, signed again.
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1].id).toBe(receiver.received[0].id);
    expect(receiver.received[1].body).toBe(receiver.received[0].body);
    expect(receiver.received[1].verifiedBy).toEqual([0]);
  });

  it('gives a delivery up after the whole schedule, and disables an endpoint that failed every attempt for 5 days', async () => {
    const time = clock();
    const start = Date.now();
    const endpoint = await subscribe();
    replies({ status: 503 });
    await createPartner(t, org);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await drain();
      const [delivery] = await deliveriesOf(endpoint);
      if (delivery.status !== 'pending') break;
      vi.setSystemTime(Date.parse(delivery.next_attempt_at) + 1);
    }
    const [delivery] = await deliveriesOf(endpoint);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: MAX_ATTEMPTS, next_attempt_at: null });
    // The gaps between attempts are the schedule's.
    const at = delivery.attempts.map((a: ApiObject) => Date.parse(a.created_at));
    expect(at.slice(1).map((x: number, i: number) => Math.round((x - at[i]) / 1000))).toEqual(RETRY_DELAYS_MS.map((ms) => ms / 1000));
    let state = (await endpoints().get(endpoint.id)).body.data;
    expect(state).toMatchObject({ enabled: true, disabled_reason: null, failing_since: new Date(at[0]).toISOString() });

    // Four days in, still failing: still enabled.
    time.advance(start + 4 * 86_400_000 - Date.now());
    await createPartner(t, org);
    await drain();
    expect((await endpoints().get(endpoint.id)).body.data.enabled).toBe(true);

    // Five days after the first failure, a failing attempt disables it, saying why.
    vi.setSystemTime(at[0] + 5 * 86_400_000 + 1000);
    await createPartner(t, org);
    await drain();
    state = (await endpoints().get(endpoint.id)).body.data;
    expect(state).toMatchObject({ enabled: false, disabled_at: expect.any(String) });
    expect(state.disabled_reason).toMatch(/failed for 5 days, since .*HTTP 503/);

    // Disabled: nothing is sent, but what happens meanwhile waits for it.
    const before = receiver.received.length;
    const meanwhile = await createPartner(t, org);
    await drain();
    expect(receiver.received).toHaveLength(before);

    // Enabled again by its owner: a fresh start, and what waited goes out.
    replies({ status: 200 });
    const enabled = await endpoints().put(endpoint.id, { enabled: true });
    expect(enabled.body.data[0]).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
    await drain();
    expect(receiver.events().map((e) => e.data.id)).toContain(meanwhile.id);
    expect(receiver.received.slice(before).every((r) => r.status === 200)).toBe(true);
  });

  it('sends nothing to an endpoint its owner paused, not even later', async () => {
    const endpoint = await subscribe();
    expect((await endpoints().put(endpoint.id, { enabled: false })).body.data[0].enabled).toBe(false);
    await createPartner(t, org);
    await drain();
    await endpoints().put(endpoint.id, { enabled: true });
    await drain();
    expect(receiver.received).toEqual([]);
    expect(await deliveriesOf(endpoint)).toEqual([]);
  });

  it('records why an attempt failed: refused connection, redirect, timeout, an answer cut at 1 KB', async () => {
    const endpoint = await subscribe();
    const cases: [Reply, RegExp, number | null][] = [
      [
        { status: 302, headers: { Location: 'https://elsewhere.example/hook' } },
        /^HTTP 302: redirects are not followed \(Location: https:\/\/elsewhere/,
        302,
      ],
      ['hang', new RegExp(`^timed out after ${TIMEOUT_MS / 1000} s$`), null],
      [{ status: 500, body: 'x'.repeat(5000) }, /^HTTP 500$/, 500],
    ];
    for (const [reply, error, status] of cases) {
      replies(reply);
      const partner = await createPartner(t, org);
      await drain();
      const event = await eventAbout('partner.created', partner.id);
      const [delivery] = await deliveriesOf(endpoint, { event_id: event.id });
      expect(delivery.attempts[0]).toMatchObject({ status: 'failed', response_status: status });
      expect(delivery.attempts[0].error).toMatch(error);
      if (status === 500) expect(delivery.attempts[0].response_body).toBe('x'.repeat(1024));
    }
    // Only one request per case: the redirect was not followed.
    expect(receiver.received).toHaveLength(cases.length);

    await receiver.close();
    await createPartner(t, org);
    await drain();
    const [last] = await deliveriesOf(endpoint, { status: 'pending' });
    expect(last.attempts[0].error).toMatch(/^ECONNREFUSED/);
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const time = clock();
    const endpoint = await subscribe();
    const rotated = await t.request.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`).set(org.auth);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const secret = rotated.body.data[0].secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(receiver.secrets[0]);
    expect(rotated.body.data[0].previous_secret_expires_at).toBe(new Date(Date.now() + 86_400_000).toISOString());
    receiver.secrets.push(secret);

    await createPartner(t, org);
    await drain();
    expect(receiver.received.at(-1)!.verifiedBy).toEqual([0, 1]);
    expect(receiver.received.at(-1)!.signature.split(' ')).toHaveLength(2);

    time.advance(86_400_000 + 1000);
    await createPartner(t, org);
    await drain();
    expect(receiver.received.at(-1)!.verifiedBy).toEqual([1]);
    expect((await endpoints().get(endpoint.id)).body.data.previous_secret_expires_at).toBeNull();
  });

  it('resends an event to every endpoint that wants it or to one, and sends a test event', async () => {
    const first = await subscribe();
    const second = await subscribe({ events: ['link.*'] });
    const partner = await createPartner(t, org);
    await drain();
    const event = await eventAbout('partner.created', partner.id);
    expect(receiver.received.map((r) => r.id)).toEqual([event.id]);

    const toAll = await t.request.post(`/v1/events/${event.id}/resend`).set(org.auth).send({});
    expect(toAll.status).toBe(200);
    expect(toAll.body.data).toEqual([expect.objectContaining({ endpoint_id: first.id, event_id: event.id, status: 'pending' })]);
    const toOne = await t.request.post(`/v1/events/${event.id}/resend`).set(org.auth).send({ endpoint_id: second.id });
    expect(toOne.body.data).toEqual([expect.objectContaining({ endpoint_id: second.id })]);
    await drain();
    expect(receiver.received.map((r) => r.id)).toEqual([event.id, event.id, event.id]);
    // Endpoints are served side by side: the two resends arrive in either order.
    expect(receiver.received.map((r) => r.verifiedBy.join()).sort()).toEqual(['0', '0', '1']);

    const test = await t.request.post(`/v1/webhook-endpoints/${second.id}/test`).set(org.auth);
    expect(test.status).toBe(201);
    await drain();
    const got = receiver.received.at(-1)!;
    expect(got.event).toMatchObject({ type: 'test', data: { endpoint_id: second.id } });
    expect(got.verifiedBy).toEqual([1]);
    expect((await t.request.get(`/v1/events/${got.id}`).set(org.auth)).body.data.type).toBe('test');

    await endpoints().put(second.id, { enabled: false });
    const disabled = await t.request.post(`/v1/events/${event.id}/resend`).set(org.auth).send({ endpoint_id: second.id });
    expect(disabled.status).toBe(400);
    expect(disabled.body.error.param).toBe('endpoint_id');
    expect((await t.request.post(`/v1/webhook-endpoints/${second.id}/test`).set(org.auth)).status).toBe(400);
    expect((await t.request.post(`/v1/events/${event.id}/resend`).set(other.auth).send({})).status).toBe(404);
    expect((await t.request.post(`/v1/events/${event.id}/resend`).set(org.auth).send({ endpoint_id: 'we_nope' })).status).toBe(404);
  });

  it('refuses a private address when it delivers, whatever the URL said when it was saved', async () => {
    const strict = createWebhookWorker(t.storage.db, logger, {
      allowPrivate: false,
      autoRun: false,
      timeoutMs: TIMEOUT_MS,
      leaseMs: t.deps.config.webhookLeaseSeconds * 1000,
    });
    try {
      const byAddress = await subscribe();
      const byName = await subscribe({ url: receiver.url.replace('127.0.0.1', 'localhost') });
      await createPartner(t, org);
      await strict.drain();
      expect(receiver.received).toEqual([]);
      const [a] = await deliveriesOf(byAddress);
      expect(a.attempts[0].error).toBe('refused: 127.0.0.1 is not a public address');
      const [b] = await deliveriesOf(byName);
      expect(b.attempts[0].error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/);
    } finally {
      await strict.close();
    }
  });

  it('never writes a signing secret to the logs or the delivery log', async () => {
    logged.length = 0;
    const endpoint = await subscribe();
    replies({ status: 500 });
    await createPartner(t, org);
    await drain();
    const rotated = (await t.request.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`).set(org.auth)).body.data[0].secret;
    const log = JSON.stringify(await deliveriesOf(endpoint));
    const list = JSON.stringify((await endpoints().list()).body);
    for (const secret of [receiver.secrets[0], rotated]) {
      const key = secret.slice('whsec_'.length);
      expect(logged.join('\n')).not.toContain(key);
      expect(log).not.toContain(key);
      expect(list).not.toContain(key);
    }
    expect(logged.length).toBeGreaterThan(0);
  });

  it('a lease renewed keeps a delivery from other processes; one left to end is taken over, first in line', async () => {
    const endpoint = await subscribe();
    await createPartner(t, org);
    await createPartner(t, org);
    const db = t.storage.db;
    await fanOutEvents(db, { batch: 500, now: new Date() });
    const start = Date.now();
    const at = (ms: number) => new Date(start + ms);
    // Another process's claim at `ms`, leased for 10 s.
    const claimAt = (ms: number, perEndpoint: number) =>
      claimDueDeliveries(db, { now: at(ms), endpoints: 16, perEndpoint, leaseUntil: at(ms + 10_000), busy: [] });
    const renew = (attempt: number, heldUntil: number, until: number, now: number) =>
      renewClaims(db, [{ id: held.id, attempt, heldUntil: at(heldUntil) }], at(until), at(now));

    // The older event's delivery, held until +10 s, renewed at +5 s until +25 s.
    const [held] = await claimAt(0, 1);
    expect(await renew(1, 10_000, 25_000, 5000)).toEqual([held.id]);
    // A renewal under a lease end this process no longer has (an answer lost) renews nothing.
    expect(await renew(1, 10_000, 30_000, 6000)).toEqual([]);
    // At +15 s, past the first lease, another process finds it held and takes the other one only.
    const other = await claimAt(15_000, 20);
    expect(other.map((d) => d.id)).not.toContain(held.id);
    expect(other).toHaveLength(1);
    await releaseClaims(db, other, at(15_000));

    // Left to end (+25 s), it is taken over, before the delivery due after it: it kept its place.
    const [taken] = await claimAt(26_000, 1);
    expect(taken).toMatchObject({ id: held.id, attempt_count: 2 });
    // Its former holder can no longer renew it.
    expect(await renew(1, 25_000, 40_000, 27_000)).toEqual([]);

    // The new holder's attempt, written twice (a retry after an answer lost with its connection), is logged once.
    const outcome = {
      deliveryId: held.id,
      entry: {
        attempt: 2,
        status: 'succeeded' as const,
        response_status: 200,
        response_body: 'ok',
        duration_ms: 3,
        error: null,
        created_at: at(26_000).toISOString(),
      },
      status: 'succeeded',
      nextAttemptAt: null,
    };
    await recordAttempts(db, [outcome], at(26_100));
    await recordAttempts(db, [outcome], at(26_200));
    const delivery = (await deliveriesOf(endpoint)).find((d) => d.id === held.id)!;
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2, next_attempt_at: null });
    expect(delivery.attempts).toHaveLength(1);
  });

  it.skipIf(STORAGE !== 'postgres')('two processes share the deliveries and never make one attempt twice', async () => {
    const second = createWebhookWorker(t.storage.db, logger, {
      allowPrivate: true,
      autoRun: false,
      perLane: 5,
      leaseMs: t.deps.config.webhookLeaseSeconds * 1000,
    });
    try {
      await subscribe();
      await subscribe({ events: ['partner.*'] });
      await Promise.all(Array.from({ length: 60 }, () => createPartner(t, org)));
      await Promise.all([drain(), second.drain(), drain(), second.drain()]);
      const ids = receiver.received.map((r) => `${r.id} ${r.verifiedBy.join()}`);
      expect(ids).toHaveLength(120);
      expect(new Set(ids).size).toBe(120);
    } finally {
      await second.close();
    }
  });
});
