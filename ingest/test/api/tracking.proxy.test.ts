import { beforeAll, describe, expect, it } from 'vitest';
import { RATE_WINDOW_SECONDS } from '../../src/http/rate-limit.js';
import { type ApiObject, createLink, createPartner, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp, type TestApp } from '../support/harness.js';
import { inOneWindow } from '../support/time.js';

/**
 * Visitors who share an address: everyone behind one office NAT, and every visitor when the
 * merchant proxies /svc/* to ingest. Without a cookie, a repeat click is recognised by IP
 * address and User-Agent, which such visitors share.
 */

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('POST /v1/track/click from visitors who share an address', () => {
  // Hooks run in order: behindProxy is built after t and closed before it.
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  const { t: behindProxy } = useTestApp({ sharesStorageWith: t, env: { SVC_TRUST_PROXY: 'loopback' } });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org);
  });

  const track = (app: TestApp, link: ApiObject, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    app.request
      .post('/v1/track/click')
      .set('Content-Type', 'text/plain')
      .set('User-Agent', UA)
      .set(headers)
      .send(JSON.stringify({ key: org.public_key, param: link.param, value: link.value, ...extra }));

  const clicked = async (res: Awaited<ReturnType<typeof track>>) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { click_id: string; customer_id: string | null; partner_id: string };
  };

  const clicksOfLink = (linkId: string) => t.storage.db.selectFrom('clicks').select('id').where('link_id', '=', linkId).execute();

  it('a second person without the cookie never gets the customer of the first one who signed up: a click of their own', async () => {
    const link = await createLink(t, org, partner);
    const first = await clicked(await track(t, link));
    const signup = await t.request
      .post('/v1/track/signup')
      .send({ key: org.public_key, click_id: first.click_id, identifier: uniqueEmail('first') });
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);

    const second = await clicked(await track(t, link));
    expect(second.click_id).not.toBe(first.click_id);
    expect(second.customer_id).toBeNull();
    expect(second.partner_id).toBe(partner.id);
    // And the second person's repeats now share the new click.
    expect((await clicked(await track(t, link))).click_id).toBe(second.click_id);
    expect(await clicksOfLink(link.id)).toHaveLength(2);
  });

  it('a repeat that names its own converted click by cookie still answers its customer_id', async () => {
    const link = await createLink(t, org, partner);
    const first = await clicked(await track(t, link));
    const signup = await t.request
      .post('/v1/track/signup')
      .send({ key: org.public_key, click_id: first.click_id, identifier: uniqueEmail('own') });
    const again = await clicked(await track(t, link, {}, { click_id: first.click_id }));
    expect(again).toMatchObject({ click_id: first.click_id, customer_id: signup.body.data.customer_id });
  });

  it('with SVC_TRUST_PROXY set, visitors are told apart by X-Forwarded-For', async () => {
    const link = await createLink(t, org, partner);
    const a = await clicked(await track(behindProxy, link, { 'X-Forwarded-For': '198.51.100.7' }));
    const b = await clicked(await track(behindProxy, link, { 'X-Forwarded-For': '203.0.113.9' }));
    const aAgain = await clicked(await track(behindProxy, link, { 'X-Forwarded-For': '198.51.100.7' }));
    expect(b.click_id).not.toBe(a.click_id);
    expect(aAgain.click_id).toBe(a.click_id);
    expect(await clicksOfLink(link.id)).toHaveLength(2);
  });

  it('without SVC_TRUST_PROXY, X-Forwarded-For is ignored: everyone is the proxy', async () => {
    const link = await createLink(t, org, partner);
    const a = await clicked(await track(t, link, { 'X-Forwarded-For': '198.51.100.7' }));
    const b = await clicked(await track(t, link, { 'X-Forwarded-For': '203.0.113.9' }));
    expect(b.click_id).toBe(a.click_id);
  });

  it('with SVC_TRUST_PROXY set, the per-address rate limit counts each visitor, not the proxy', async () => {
    const limited = await createTestApp({ storage: t.storage, env: { SVC_TRUST_PROXY: 'loopback', SVC_TRACK_RATE_LIMIT: '2' } });
    try {
      const link = await createLink(t, org, partner);
      const from = (ip: string) => track(limited, link, { 'X-Forwarded-For': ip });
      // The limit counts a real second: each run that outlasts it is made again from other addresses.
      await inOneWindow(RATE_WINDOW_SECONDS * 1000, async (attempt) => {
        const [one, two] = [`192.0.2.${2 * attempt - 1}`, `192.0.2.${2 * attempt}`];
        // Two visitors with two requests each all pass; a third from one of them is refused.
        for (const ip of [one, two, one, two]) expect((await from(ip)).status).toBe(200);
        expect((await from(one)).status).toBe(429);
      });
    } finally {
      await limited.close();
    }
  });
});
