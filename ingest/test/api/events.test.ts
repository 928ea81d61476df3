import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import { newId } from '../../src/ids.js';
import { approveDueCommissions } from '../../src/resources/commissions/approval-job.js';
import { insertPartner } from '../../src/resources/partners/partners.repository.js';
import { type ApiObject, createCustomer, createLink, createPartner, createTransaction, uniqueEmail } from '../support/factories.js';
import { COMMISSION_FULL_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { DAY_MS } from '../support/time.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The events outbox (ingest/docs/webhooks.md): every change of a partner, link, customer,
 * transaction or commission is an event written in the change's own SQL transaction, whatever
 * made the change; its `data` is the object as the API answers it.
 */

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('events', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2, env: { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  const events = () => resource(t, '/v1/events', org);
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  /** Every event of the organization after `since` (an event id, or the start), oldest first. */
  async function eventsSince(since?: string): Promise<ApiObject[]> {
    const all: ApiObject[] = [];
    let cursor = since;
    for (;;) {
      const res = await events().list({ order: 'asc', limit: 100, ...(cursor ? { starting_after: cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      all.push(...res.body.data);
      if (!res.body.has_more) return all;
      cursor = res.body.data.at(-1).id;
    }
  }
  const lastEventId = async () => (await events().list({ limit: 1 })).body.data[0]?.id as string | undefined;
  const types = (list: ApiObject[]) => list.map((e) => e.type);

  it('the tracking cycle emits exactly its events, once each, with the objects the API answered', async () => {
    const start = await lastEventId();
    // A receiver subscribed to everything sees the whole cycle.
    const endpoint = await t.request.post('/v1/webhook-endpoints').set(org.auth).send({ url: receiver.url });
    receiver.secrets.push(endpoint.body.data[0].secret);
    const partner = await createPartner(t, org, { first_name: 'Eve' });
    let step = await eventsSince(start);
    expect(types(step)).toEqual(['partner.created']);
    expect(step[0]).toEqual({
      id: expect.stringMatching(/^evt_\w{24}$/),
      type: 'partner.created',
      created_at: expect.any(String),
      data: partner,
    });

    const link = await createLink(t, org, partner);
    let mark = step.at(-1)!.id;
    step = await eventsSince(mark);
    expect(step.map((e) => [e.type, e.data])).toEqual([['link.created', link]]);

    // The script: a click (no event) and a signup, the lead of the click's partner.
    mark = step.at(-1)!.id;
    const post = (path: string, body: object) =>
      t.request.post(path).set('Content-Type', 'text/plain').set('User-Agent', UA).send(JSON.stringify(body));
    const click = await post('/v1/track/click', { key: org.public_key, param: link.param, value: link.value });
    expect(click.status).toBe(200);
    expect(await eventsSince(mark)).toEqual([]);
    const email = uniqueEmail('buyer');
    const signup = await post('/v1/track/signup', { key: org.public_key, click_id: click.body.data.click_id, identifier: email });
    expect(signup.status).toBe(201);
    step = await eventsSince(mark);
    expect(types(step)).toEqual(['customer.created']);
    const customer = (await t.request.get(`/v1/customers/${signup.body.data.customer_id}`).set(org.auth)).body.data;
    expect(step[0].data).toEqual({ ...customer, identifier: email });

    // A payment: the transaction, the default flow's commission, and the lead becoming active.
    mark = step.at(-1)!.id;
    const transaction = await createTransaction(t, org, customer, { amount: 4900 });
    step = await eventsSince(mark);
    expect(types(step).sort()).toEqual(['commission.created', 'customer.updated', 'transaction.created']);
    const byType = Object.fromEntries(step.map((e) => [e.type, e]));
    expect(byType['transaction.created'].data).toEqual(transaction);
    const commissionId = byType['commission.created'].data.id;
    const noChange = await t.request.put(`/v1/commissions/${commissionId}`).set(org.auth).send({});
    // The PUT touched only updated_at, which is no change.
    expect(byType['commission.created'].data).toEqual({
      ...noChange.body.data[0],
      updated_at: byType['commission.created'].data.updated_at,
    });
    expect(byType['commission.created'].data).toMatchObject({ amount: '980', status: 'pending', partner_id: partner.id });
    expect(byType['customer.updated'].data).toMatchObject({ id: customer.id, status: 'active' });
    expect(byType['customer.updated'].previous_attributes).toEqual({ status: 'lead', active_at: null });
    // A PUT that changes nothing is no event.
    expect(await eventsSince(step.at(-1)!.id)).toEqual([]);

    // Approving the commission: an update carrying the previous status.
    mark = (await lastEventId())!;
    const approved = await t.request.put(`/v1/commissions/${commissionId}`).set(org.auth).send({ status: 'approved' });
    expect(approved.status).toBe(200);
    step = await eventsSince(mark);
    expect(step).toEqual([
      expect.objectContaining({ type: 'commission.updated', data: approved.body.data[0], previous_attributes: { status: 'pending' } }),
    ]);

    // A partial refund: the transaction is refunded, the commission gets a refund entry.
    mark = step.at(-1)!.id;
    const refund = await t.request.put(`/v1/transactions/${transaction.id}/refund`).set(org.auth).send({ amount: 900 });
    expect(refund.status).toBe(200);
    step = await eventsSince(mark);
    const refunded = step.filter((e) => e.type === 'transaction.refunded');
    expect(refunded).toHaveLength(1);
    expect(refunded[0].data).toEqual(refund.body.data[0]);
    expect(refunded[0].previous_attributes).toMatchObject({ status: 'paid', refunded_amount: 0, refunded_at: null });
    const entries = step.filter((e) => e.type === 'commission.created').map((e) => e.data);
    expect(entries).toEqual([expect.objectContaining({ type: 'refund', amount: '-180', status: 'approved' })]);
    // The reward's charge status follows the transaction's.
    expect(step.filter((e) => e.type === 'commission.updated')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ id: commissionId, charge_status: 'partially_refunded' }) }),
    ]);

    // Deleting the partner deletes its link with it: two events.
    mark = step.at(-1)!.id;
    expect((await t.request.delete(`/v1/partners/${partner.id}`).set(org.auth)).status).toBe(200);
    step = await eventsSince(mark);
    expect(types(step).sort()).toEqual(['link.deleted', 'partner.deleted']);

    // Each event once: no id twice over the whole cycle.
    const all = await eventsSince(start);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);

    // The receiver got exactly these events, each once, signed, with the same bodies.
    await t.deps.webhooks.drain();
    expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
    expect([...receiver.events()].sort((x, y) => x.id.localeCompare(y.id))).toEqual([...all].sort((x, y) => x.id.localeCompare(y.id)));
    expect((await t.request.delete(`/v1/webhook-endpoints/${endpoint.body.data[0].id}`).set(org.auth)).status).toBe(200);
  });

  it('changes made outside a request are events too: the approval job approving a batch', async () => {
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    await createTransaction(t, org, customer, { amount: 1000 });
    const mark = await lastEventId();
    expect(await approveDueCommissions(t.storage.db, new Date(Date.now() + 31 * DAY_MS))).toBeGreaterThanOrEqual(1);
    const approved = (await eventsSince(mark)).filter((e) => e.data.customer_id === customer.id);
    expect(approved).toEqual([
      expect.objectContaining({
        type: 'commission.updated',
        data: expect.objectContaining({ status: 'approved', partner_id: partner.id }),
        previous_attributes: { status: 'pending' },
      }),
    ]);
  });

  it("a rejection's reason is beside the commission's data (included), as include[] shows it; data keeps the Partnership Program API's set; an event from before it reads null", async () => {
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    await createTransaction(t, org, customer, { amount: 1000 });
    const [commission] = (
      await t.request.get('/v1/commissions').set(org.auth).query({ program_id: org.program_id, customer_id: customer.id })
    ).body.data;
    const put = (body: object) => t.request.put(`/v1/commissions/${commission.id}`).set(org.auth).send(body);
    const reasonNow = async () =>
      (await t.request.get(`/v1/commissions/${commission.id}?include[]=rejection_reason`).set(org.auth)).body.data.rejection_reason;

    let mark = await lastEventId();
    const rejected = await put({ status: 'rejected', rejection_reason: 'Duplicate order' });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    let step = await eventsSince(mark);
    expect(step).toEqual([
      expect.objectContaining({
        type: 'commission.updated',
        data: rejected.body.data[0],
        included: { rejection_reason: 'Duplicate order' },
        previous_attributes: { status: 'pending', rejection_reason: null },
      }),
    ]);
    expect(Object.keys(step[0].data).sort()).toEqual([...COMMISSION_FULL_FIELDS].sort());
    expect(await reasonNow()).toBe('Duplicate order');

    // The reason alone changing is an update too.
    mark = step.at(-1)!.id;
    const reworded = await put({ rejection_reason: 'Duplicate of an earlier order' });
    step = await eventsSince(mark);
    expect(step).toEqual([
      expect.objectContaining({
        data: reworded.body.data[0],
        included: { rejection_reason: 'Duplicate of an earlier order' },
        previous_attributes: { rejection_reason: 'Duplicate order' },
      }),
    ]);

    // Leaving rejected clears it, in the same event.
    mark = step.at(-1)!.id;
    const approved = await put({ status: 'approved' });
    step = await eventsSince(mark);
    expect(step).toEqual([
      expect.objectContaining({
        data: approved.body.data[0],
        included: { rejection_reason: null },
        previous_attributes: { status: 'rejected', rejection_reason: 'Duplicate of an earlier order' },
      }),
    ]);

    // Events of other resources carry nothing beside their data.
    expect((await events().list({ type: 'customer.created', limit: 1 })).body.data[0]).not.toHaveProperty('included');

    // A snapshot taken before migration 0012 has no such column: the event shows null, like the API.
    await sql`update events set snapshot = snapshot - 'rejection_reason', previous_snapshot = previous_snapshot - 'rejection_reason'
               where id = ${step[0].id}`.execute(t.storage.db);
    const old = (await events().get(step[0].id)).body.data;
    expect(old.data).toEqual(approved.body.data[0]);
    expect(old.included).toEqual({ rejection_reason: null });
    expect(old.previous_attributes).toEqual({ status: 'rejected' });
  });

  it('snapshots in UTC whatever the session time zone, so an old date in a far zone still reads', async () => {
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    const paid = await createTransaction(t, org, customer, { created_at: '1850-01-01T00:00:00.000Z' });
    const mark = await lastEventId();
    await t.storage.db.transaction().execute(async (trx) => {
      // Amsterdam's offset in 1850 was local mean time, +00:19:32: no ISO 8601 offset.
      await sql`set local timezone = 'Europe/Amsterdam'`.execute(trx);
      await sql`update transactions set product_name = 'Heritage' where id = ${paid.id}`.execute(trx);
    });
    const [updated] = await eventsSince(mark);
    expect(updated).toMatchObject({
      type: 'transaction.updated',
      data: { created_at: '1850-01-01T00:00:00.000Z', product_name: 'Heritage' },
    });
    expect((await events().get(updated.id)).status).toBe(200);
  });

  it('a refused change emits nothing: a repeated charge_id is a 409 and no event', async () => {
    const partner = await createPartner(t, org);
    const customer = await createCustomer(t, org, partner);
    const paid = await createTransaction(t, org, customer, { charge_id: 'ch_once' });
    const mark = await lastEventId();
    const again = await t.request
      .post('/v1/transactions')
      .set(org.auth)
      .send({ amount: 100, customer_id: customer.id, charge_id: 'ch_once' });
    expect(again.status).toBe(409);
    expect(again.body.data.id).toBe(paid.id);
    expect(await eventsSince(mark)).toEqual([]);
  });

  it('a rolled-back SQL transaction emits nothing, though its statements wrote events inside it', async () => {
    const mark = await lastEventId();
    const now = new Date();
    let seenInside = 0;
    await expect(
      inTransaction(t.storage.db, async (trx) => {
        await insertPartner(trx, {
          id: newId('partner'),
          organization_id: org.organization_id,
          program_id: org.program_id,
          group_id: org.group_id,
          status: 'active',
          first_name: 'Rolled',
          last_name: 'Back',
          email: uniqueEmail('rolled'),
          company_name: null,
          country_code: null,
          payout_method: 'none',
          payout_details: '{}',
          completed_onboarding: true,
          rejection_note: null,
          internal_note: null,
          suspension_reason: null,
          first_customer_email_active: true,
          new_customer_email_active: true,
          payout_paid_email_active: true,
          created_at: now,
          updated_at: now,
        });
        seenInside = (await trx.selectFrom('events').select('id').where('type', '=', 'partner.created').execute()).length;
        throw new Error('the change fails after its partner was written');
      }),
    ).rejects.toThrow('the change fails');
    expect(seenInside).toBeGreaterThan(0);
    expect(await eventsSince(mark)).toEqual([]);
  });

  it('lists with filters and retrieves one event; another organization sees none of them', async () => {
    const partner = await createPartner(t, org);
    const list = await events().list({ type: 'partner.created', program_id: org.program_id, limit: 100 });
    expect(list.status).toBe(200);
    expect(list.body.data.every((e: ApiObject) => e.type === 'partner.created')).toBe(true);
    const event = list.body.data.find((e: ApiObject) => e.data.id === partner.id);
    expect(event).toBeDefined();
    expect(list.body.total_count).toBeGreaterThanOrEqual(1);

    const one = await events().get(event.id);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(event);

    expect((await events().get(event.id, undefined, other)).status).toBe(404);
    expect((await events().list({ limit: 100 }, other)).body.data.map((e: ApiObject) => e.id)).not.toContain(event.id);
    expect((await events().list({ program_id: org.program_id }, other)).status).toBe(404);
    expect((await events().list({ type: 'partner.exploded' })).status).toBe(400);
  });
});
