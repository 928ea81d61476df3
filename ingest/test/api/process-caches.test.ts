import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiObject, createCustomer, createLink, createPartner, createTransaction, defaultFlowOf } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';

/**
 * Secret keys, programs by public key and flows are cached in each process. Two app instances
 * over one database and one shared store stand for two processes: a change made through A
 * reaches B's cache through the shared store (at once on embedded, within milliseconds over
 * Redis, so the test waits for B to hear of it).
 */
describe('in-process caches across processes', () => {
  // Hooks run in order: b is built after a and closed before it.
  const {
    t: a,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  const { t: b } = useTestApp({ sharesStorageWith: a });
  let program: ApiObject;

  beforeAll(async () => {
    program = (await a.request.get(`/v1/programs/${org.program_id}`).set(org.auth)).body.data;
  });

  /** Resolves once `app`'s process has heard an invalidation of `key` in the cache `name`. */
  function heardOn(app: TestApp, name: string, key: string): Promise<void> {
    return new Promise((resolve) => {
      const off = app.deps.store.subscribe(`cache:${name}`, (message) => {
        if (message === key) {
          off();
          resolve();
        }
      });
    });
  }

  it('a key revoked through A is refused by B', async () => {
    const created = await a.request.post('/v1/api-keys').set(org.auth).send({ name: 'short-lived' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, secret } = created.body.data[0];
    const auth = { Authorization: `Bearer ${secret}` };
    expect((await b.request.get('/v1/programs').set(auth)).status).toBe(200); // now cached in B

    expect((await a.request.delete(`/v1/api-keys/${id}`).set(org.auth)).status).toBe(200);
    // The revoking process at once; the other as soon as the shared store delivers the news.
    expect((await a.request.get('/v1/programs').set(auth)).status).toBe(401);
    await expect.poll(async () => (await b.request.get('/v1/programs').set(auth)).status, { timeout: 2_000 }).toBe(401);
  });

  it("a program's cookie_duration changed through A is what B's script endpoint answers", async () => {
    const partner = await createPartner(a, org);
    const link = await createLink(a, org, partner);
    const click = (app: TestApp, ua: string) =>
      app.request.post('/v1/track/click').set('User-Agent', ua).send({ key: program.public_key, param: link.param, value: link.value });
    expect((await click(b, 'Mozilla/5.0 Firefox/125.0 one')).body.data.cookie_duration).toBe(program.cookie_duration);

    const heard = heardOn(b, 'programs', program.public_key);
    expect((await a.request.put(`/v1/programs/${program.id}`).set(org.auth).send({ cookie_duration: 45 })).status).toBe(200);
    await heard;
    expect((await click(b, 'Mozilla/5.0 Firefox/125.0 two')).body.data.cookie_duration).toBe(45);
  });

  it("a flow changed through A pays B's next payment by its new terms", async () => {
    const partner = await createPartner(a, org);
    const customer = await createCustomer(a, org, partner, { status: 'active' });
    const flow = await defaultFlowOf(a, org, program);
    const rewardOf = async (app: TestApp) => {
      const txn = await createTransaction(app, org, customer, { amount: 10_000 });
      const res = await app.request.get(`/v1/commissions?program_id=${program.id}&transaction_id=${txn.id}`).set(org.auth);
      return res.body.data.map((c: ApiObject) => c.amount);
    };
    expect(await rewardOf(b)).toEqual([2000]); // the default 20 %, now cached in B

    const heard = heardOn(b, 'flows', program.id);
    const put = await a.request
      .put(`/v1/flows/${flow.id}`)
      .set(org.auth)
      .send({ reward: { type: 'percentage', value: 35 } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await heard;
    expect(await rewardOf(b)).toEqual([3500]);

    const off = heardOn(b, 'flows', program.id);
    expect((await a.request.delete(`/v1/flows/${flow.id}`).set(org.auth)).status).toBe(200);
    await off;
    expect(await rewardOf(b)).toEqual([]);
  });
});
