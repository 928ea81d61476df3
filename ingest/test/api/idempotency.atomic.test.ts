import { sql } from 'kysely';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiObject, createCustomer, createOrganization, createPartner, type TestOrg } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { STORAGE, warmPool } from '../support/harness.js';
import { queuedTo } from '../support/outbox.js';
import { sendWhileTerminated } from '../support/terminate.js';
import { EVENTUALLY } from '../support/time.js';

/**
 * `Idempotency-Key` records live in SQL and are written in the same SQL transaction as the
 * change they protect (ingest/docs/api.md#idempotency): whatever fails between the change and its
 * record, a retry either replays the answer or runs afresh, and nothing is recorded twice.
 */

let seq = 0;
const newKey = () => `atomic-${Date.now()}-${++seq}`;

describe('Idempotency-Key records commit with the change', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  let customer: ApiObject;
  beforeAll(async () => {
    const partner = await createPartner(t, org, { program_id: org.program_id });
    customer = await createCustomer(t, org, partner);
  });

  const pay = (key: string, body: Record<string, unknown>) =>
    t.request.post('/v1/transactions').set(org.auth).set('Idempotency-Key', key).send(body);
  const countTransactions = async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from transactions where customer_id = ${customer.id}`.execute(
      t.storage.db,
    );
    return rows[0].n;
  };
  const countCommissions = async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from commissions where customer_id = ${customer.id}`.execute(
      t.storage.db,
    );
    return rows[0].n;
  };

  it('a record that cannot be written undoes the payment it was for, and the retry records it once', async () => {
    const before = { transactions: await countTransactions(), commissions: await countCommissions() };
    const key = newKey();
    const body = { customer_id: customer.id, amount: 4900 };
    // Every new record is refused, as a crash between the change and its record would lose it.
    await sql`alter table idempotency_keys add constraint refuse_records check (false) not valid`.execute(t.storage.db);
    let failed: { status: number; body: unknown };
    try {
      failed = await pay(key, body);
    } finally {
      await sql`alter table idempotency_keys drop constraint refuse_records`.execute(t.storage.db);
    }
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ success: false, error: { message: 'Internal server error', type: 'api_error' } });
    expect(await countTransactions()).toBe(before.transactions);
    expect(await countCommissions()).toBe(before.commissions);

    const retried = await pay(key, body);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await pay(key, body);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.data[0].id).toBe(retried.body.data[0].id);
    expect(await countTransactions()).toBe(before.transactions + 1);
    expect(await countCommissions()).toBe(before.commissions + 1);
  });

  it('a refused request keeps its answer but none of its writes', async () => {
    const key = newKey();
    // A charge already recorded: the answer is a 409 carrying the recorded transaction.
    const charge = `ch_${newKey()}`;
    const first = await t.request.post('/v1/transactions').set(org.auth).send({ customer_id: customer.id, amount: 100, charge_id: charge });
    expect(first.status).toBe(201);
    const before = await countTransactions();
    const refused = await pay(key, { customer_id: customer.id, amount: 100, charge_id: charge });
    expect(refused.status).toBe(409);
    expect(refused.body.data.id).toBe(first.body.data[0].id);
    const replay = await pay(key, { customer_id: customer.id, amount: 100, charge_id: charge });
    expect(replay.status).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(refused.body);
    expect(await countTransactions()).toBe(before);
  });

  it('a click recorded with a key commits with the request and is replayed, not recorded again', async () => {
    const link = await t.request
      .post('/v1/links')
      .set(org.auth)
      .send({ param: 'ref', value: `atomic${++seq}`, partner_id: customer.partner_id });
    expect(link.status).toBe(201);
    const key = newKey();
    const body = { param: 'ref', value: link.body.data[0].value, program_id: org.program_id };
    const first = await t.request.post('/v1/clicks').set(org.auth).set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(201);
    const again = await t.request.post('/v1/clicks').set(org.auth).set('Idempotency-Key', key).send(body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data[0].id).toBe(first.body.data[0].id);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from clicks where link_id = ${link.body.data[0].id}`.execute(
      t.storage.db,
    );
    expect(rows[0].n).toBe(1);
  });

  it('a new API key is shown once: its replay has no secret, and no record holds it', async () => {
    const key = newKey();
    const first = await t.request.post('/v1/api-keys').set(org.auth).set('Idempotency-Key', key).send({ name: 'ci' });
    expect(first.status).toBe(201);
    expect(first.headers['cache-control']).toBe('no-store');
    const secret: string = first.body.data[0].secret;
    expect(secret).toMatch(/^sk_/);

    const replay = await t.request.post('/v1/api-keys').set(org.auth).set('Idempotency-Key', key).send({ name: 'ci' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data[0]).not.toHaveProperty('secret');
    const { secret: _shown, ...rest } = first.body.data[0];
    expect(replay.body.data[0]).toEqual(rest);

    const { rows } = await sql<{ body: string }>`select response_body::text as body from idempotency_keys`.execute(t.storage.db);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.body).not.toContain(secret);
    // The key works, and was created once.
    expect((await t.request.get('/v1/programs').set({ Authorization: `Bearer ${secret}` })).status).toBe(200);
    const keys = await t.request.get('/v1/api-keys?limit=100').set(org.auth);
    expect(keys.body.data.filter((k: ApiObject) => k.name === 'ci')).toHaveLength(1);
  });

  it('a welcome e-mail of a request with a key is sent once the request has committed, and not at all when it rolls back', async () => {
    await sql`alter table idempotency_keys add constraint refuse_records check (false) not valid`.execute(t.storage.db);
    const email = `rolled-back-${seq}@example.com`;
    try {
      const failed = await t.request
        .post('/v1/partners')
        .set(org.auth)
        .set('Idempotency-Key', newKey())
        .send({ program_id: org.program_id, first_name: 'Rolled', last_name: 'Back', email, send_welcome_email: true });
      expect(failed.status).toBe(500);
    } finally {
      await sql`alter table idempotency_keys drop constraint refuse_records`.execute(t.storage.db);
    }
    await t.deps.mailer.drain();
    expect(await queuedTo(t, email)).toEqual([]);

    const committed = `committed-${seq}@example.com`;
    const ok = await t.request
      .post('/v1/partners')
      .set(org.auth)
      .set('Idempotency-Key', newKey())
      .send({ program_id: org.program_id, first_name: 'Com', last_name: 'Mitted', email: committed, send_welcome_email: true });
    expect(ok.status).toBe(201);
    // Sent in the background after the commit, by the mailer's own run.
    await vi.waitFor(async () => {
      expect((await queuedTo(t, committed)).filter((e) => e.sent_at !== null)).toHaveLength(1);
    }, EVENTUALLY);
  });
});

describe.skipIf(STORAGE === 'embedded')('a payment whose connection is terminated mid-request', () => {
  const { t } = useTestApp();
  let org: TestOrg;
  let customer: ApiObject;
  beforeAll(async () => {
    await warmPool(t);
    org = await createOrganization(t);
    const partner = await createPartner(t, org, { program_id: org.program_id });
    customer = await createCustomer(t, org, partner);
  });

  const countTransactions = async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from transactions where customer_id = ${customer.id}`.execute(
      t.storage.db,
    );
    return rows[0].n;
  };

  const payWhileTerminated = (send: () => Promise<import('supertest').Response>) => sendWhileTerminated(t, 'transactions', send);

  it('answers 503, records nothing, and a retry with the same Idempotency-Key records it once', async () => {
    const before = await countTransactions();
    const key = newKey();
    const body = { customer_id: customer.id, amount: 2500 };
    const send = () => t.request.post('/v1/transactions').set(org.auth).set('Idempotency-Key', key).send(body);
    const cut = await payWhileTerminated(send);
    expect(cut.status).toBe(503);
    expect(cut.body).toMatchObject({ success: false, error: { type: 'service_unavailable' } });
    expect(cut.headers['retry-after']).toBe('1');
    expect(await countTransactions()).toBe(before);

    const retried = await send();
    expect(retried.status).toBe(201);
    expect((await send()).headers['idempotent-replayed']).toBe('true');
    expect(await countTransactions()).toBe(before + 1);
  });

  it('answers 503 without a key too, and a retry with the same charge_id records it once', async () => {
    const before = await countTransactions();
    const body = { customer_id: customer.id, amount: 2500, charge_id: `ch_${newKey()}` };
    const send = () => t.request.post('/v1/transactions').set(org.auth).send(body);
    const cut = await payWhileTerminated(send);
    expect(cut.status).toBe(503);
    expect(await countTransactions()).toBe(before);
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(409);
    expect(await countTransactions()).toBe(before + 1);
  });
});
