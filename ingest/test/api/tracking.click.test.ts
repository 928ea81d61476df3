import { sql } from 'kysely';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { RATE_WINDOW_SECONDS } from '../../src/http/rate-limit.js';
import { expectError, expectLinkNotFound } from '../support/expect-error.js';
import {
  type ApiObject,
  createLink,
  createPartner,
  createProgram,
  partnerStats,
  uniqueEmail,
  uniqueLinkValue,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp, type TestApp, warmPool } from '../support/harness.js';
import { setCookies } from '../support/set-cookies.js';
import { DAY_MS, inOneWindow } from '../support/time.js';

/**
 * POST /v1/track/click, the tracking script's click (script/README.md#the-endpoints-it-calls):
 * public key in the body, JSON as text/plain, open CORS, per-IP limit, bot filter, repeat-click
 * dedup, first/last click attribution and same-site cookies.
 */

const UA = {
  desktopChrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  macSafari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  headlessChrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
  curl: 'curl/8.5.0',
};

const DATA_FIELDS = ['click_id', 'cookie_duration', 'partner_id', 'program_id', 'customer_id'];
const COOKIE_SECONDS = 30 * 86_400;

/** A successful track/click answer, with exactly the documented fields. */
function expectTracked(
  res: Response,
  expected: { partner_id: string; program_id: string; customer_id?: string | null },
  maxAge = COOKIE_SECONDS,
): ApiObject {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(Object.keys(res.body).sort()).toEqual(['cookie', 'data', 'max_age', 'success']);
  expect(res.body.success).toBe(true);
  expect(Object.keys(res.body.data).sort()).toEqual([...DATA_FIELDS].sort());
  expect(res.body.data).toEqual({
    click_id: expect.stringMatching(/^clk_[0-9A-Za-z]{24}$/),
    cookie_duration: 30,
    partner_id: expected.partner_id,
    program_id: expected.program_id,
    customer_id: expected.customer_id ?? null,
  });
  expect(Number.isInteger(res.body.max_age)).toBe(true);
  expect(res.body.max_age).toBeLessThanOrEqual(maxAge);
  expect(res.body.max_age).toBeGreaterThanOrEqual(maxAge - 10);
  return res.body.data;
}

describe('POST /v1/track/click', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org, { first_name: 'Tracked' });
  });

  /** POSTs the body as the script does: JSON text as text/plain. */
  const track = (body: Record<string, unknown>, headers: Record<string, string> = {}, app: TestApp = t) =>
    app.request
      .post('/v1/track/click')
      .set('Content-Type', 'text/plain')
      .set('User-Agent', UA.desktopChrome)
      .set(headers)
      .send(JSON.stringify(body));

  const clickBody = (link: ApiObject, extra: Record<string, unknown> = {}, key = org.public_key) => ({
    key,
    param: link.param,
    value: link.value,
    ...extra,
  });

  const clickRow = (id: string) => t.storage.db.selectFrom('clicks').selectAll().where('id', '=', id).executeTakeFirst();
  const clicksOfLink = (linkId: string) =>
    t.storage.db.selectFrom('clicks').selectAll().where('link_id', '=', linkId).orderBy('created_at').execute();
  const ageClick = (id: string, interval: string) =>
    sql`update clicks set created_at = now() - ${interval}::interval, updated_at = now() - ${interval}::interval where id = ${id}`.execute(
      t.storage.db,
    );

  /** A fresh link of a fresh partner of the org's first program (so per-link dedup never crosses tests). */
  async function freshLink(p: ApiObject = partner, overrides: Record<string, unknown> = {}): Promise<ApiObject> {
    return createLink(t, org, p, overrides);
  }

  describe('request bodies', () => {
    it('accepts the JSON body as text/plain (what the script sends)', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link));
      const data = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      expect(res.body.cookie).toBe(false);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect((await clicksOfLink(link.id)).map((c) => c.id)).toEqual([data.click_id]);
    });

    it('accepts the same body as application/json', async () => {
      const link = await freshLink();
      const res = await t.request.post('/v1/track/click').set('User-Agent', UA.desktopChrome).send(clickBody(link));
      const data = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      expect((await clicksOfLink(link.id)).map((c) => c.id)).toEqual([data.click_id]);
    });

    it('answers 400 for malformed JSON, in either content type, recording nothing', async () => {
      const link = await freshLink();
      for (const type of ['text/plain', 'application/json']) {
        const res = await t.request.post('/v1/track/click').set('Content-Type', type).send(`{"key":"${org.public_key}","param":"ref",`);
        expectError(res, 400, 'invalid_request_error');
        expect(res.body.error.message).toMatch(/malformed json/i);
        expect(res.headers['access-control-allow-origin']).toBe('*');
      }
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });

    it('answers 400 for unknown keys, naming them', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, { partner_id: partner.id }));
      expectError(res, 400, 'invalid_request_error', 'partner_id');
      expect(res.body.error.message).toMatch(/unknown body parameter/i);
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });

    it.each([
      ['an app referrer', 'referrer', 'android-app://com.google.android.gm/'],
      ['a javascript: page', 'page', 'javascript:alert(1)'],
      ['text that is not a URL', 'referrer', 'not a url'],
      ['an empty string', 'page', ''],
      ['a page over 2048 characters', 'page', `https://shop.test/${'a'.repeat(2040)}`],
      ['a referrer over 2048 characters', 'referrer', `https://blog.example.com/${'p'.repeat(2030)}`],
    ])('records the click and drops %s (%s) instead of failing', async (_what, field, value) => {
      const p = await createPartner(t, org);
      const link = await freshLink(p);
      const other = field === 'page' ? { referrer: 'https://blog.example.com/kept' } : { page: `https://shop.test/?ref=${link.value}` };
      const res = await track(clickBody(link, { [field]: value, ...other }));
      const data = expectTracked(res, { partner_id: p.id, program_id: org.program_id });
      const row = await clickRow(data.click_id);
      expect(row![field as 'page' | 'referrer']).toBeNull();
      expect(row).toMatchObject(other);
      expect((await clicksOfLink(link.id)).map((c) => c.id)).toEqual([data.click_id]);
    });

    it('keeps an http(s) page and referrer of exactly 2048 characters', async () => {
      const link = await freshLink();
      const page = `https://shop.test/${'a'.repeat(2048 - 'https://shop.test/'.length)}`;
      const referrer = `http://blog.example.com/${'b'.repeat(2048 - 'http://blog.example.com/'.length)}`;
      const data = expectTracked(await track(clickBody(link, { page, referrer })), { partner_id: partner.id, program_id: org.program_id });
      expect(await clickRow(data.click_id)).toMatchObject({ page, referrer });
    });

    it.each([
      ['page', 42],
      ['page', { href: 'https://shop.test/' }],
      ['referrer', true],
      ['referrer', ['https://blog.example.com/']],
    ])('still answers 400 for a %s of the wrong type (%j), recording nothing', async (field, value) => {
      const link = await freshLink();
      expectError(await track(clickBody(link, { [field]: value })), 400, 'invalid_request_error', field);
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });

    it('accepts v, the script version, in the click and the signup', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, { v: '0.1.0' }));
      const data = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      const signup = await t.request
        .post('/v1/track/signup')
        .set('Content-Type', 'text/plain')
        .set('User-Agent', UA.desktopChrome)
        .send(JSON.stringify({ key: org.public_key, click_id: data.click_id, identifier: uniqueEmail('v'), v: '0.1.0' }));
      expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    });

    it('answers 400 for a v that is not a short string', async () => {
      const link = await freshLink();
      expectError(await track(clickBody(link, { v: 1 })), 400, 'invalid_request_error', 'v');
      expectError(await track(clickBody(link, { v: 'x'.repeat(33) })), 400, 'invalid_request_error', 'v');
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });
  });

  describe('public key', () => {
    it('answers 401 authentication_error "Invalid public key provided" for an unknown key', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, {}, 'pk_doesNotExist123'));
      expectError(res, 401, 'authentication_error');
      expect(res.body.error.message).toBe('Invalid public key provided');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });

    it('answers 401 authentication_error for a missing or malformed key (a secret key, an empty string, junk)', async () => {
      const link = await freshLink();
      const { key: _omitted, ...withoutKey } = clickBody(link);
      const cases: Record<string, Record<string, unknown>> = {
        missing: withoutKey,
        secret: clickBody(link, {}, org.api_key),
        empty: clickBody(link, {}, ''),
        junk: clickBody(link, {}, 'pk_not-a-key!'),
        number: clickBody(link, {}, 42 as unknown as string),
      };
      const answers: Record<string, unknown> = {};
      for (const [name, body] of Object.entries(cases)) {
        const res = await track(body);
        answers[name] = `${res.status} ${res.body?.error?.type}: ${res.body?.error?.message}`;
        expect(res.headers['access-control-allow-origin']).toBe('*');
      }
      expect(answers).toEqual(
        Object.fromEntries(Object.keys(cases).map((name) => [name, '401 authentication_error: Invalid public key provided'])),
      );
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });

    it('does not accept a secret API key in the Authorization header instead of the body key', async () => {
      const link = await freshLink();
      const { key: _omitted, ...withoutKey } = clickBody(link);
      const res = await track(withoutKey, org.auth);
      expect(res.status).not.toBe(200);
      expect(await clicksOfLink(link.id)).toHaveLength(0);
    });
  });

  describe('link lookup', () => {
    it('answers 404 {success:false, error:"Link not found"} for an unknown value', async () => {
      const res = await track({ key: org.public_key, param: 'ref', value: uniqueLinkValue('nobody') });
      expectLinkNotFound(res);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it("answers 404 for another organization's link value with this organization's key, recording nothing", async () => {
      const foreignPartner = await createPartner(t, otherOrg);
      const foreign = await createLink(t, otherOrg, foreignPartner);
      const res = await track({ key: org.public_key, param: foreign.param, value: foreign.value });
      expectLinkNotFound(res);
      expect(await clicksOfLink(foreign.id)).toHaveLength(0);
      // The same value with the owner's key is found.
      expectTracked(await track({ key: otherOrg.public_key, param: foreign.param, value: foreign.value }), {
        partner_id: foreignPartner.id,
        program_id: otherOrg.program_id,
      });
    });

    it('answers 404 for a link of another program of the same organization (the key names one program)', async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const link = await createLink(t, org, elsewhere);
      expectLinkNotFound(await track(clickBody(link)));
      expect(await clicksOfLink(link.id)).toHaveLength(0);
      expectTracked(await track(clickBody(link, {}, program.public_key)), { partner_id: elsewhere.id, program_id: program.id });
    });

    it('matches the link value case-insensitively', async () => {
      const link = await freshLink(partner, { value: uniqueLinkValue('MixedCase') });
      const res = await track({ key: org.public_key, param: link.param, value: link.value.toUpperCase() });
      const data = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      expect((await clickRow(data.click_id))?.link_id).toBe(link.id);
    });

    it('works with the other default param (via)', async () => {
      const link = await freshLink(partner, { param: 'via' });
      const data = expectTracked(await track(clickBody(link)), { partner_id: partner.id, program_id: org.program_id });
      expect((await clickRow(data.click_id))?.link_id).toBe(link.id);
    });
  });

  describe('the recorded click', () => {
    it('stores page and referrer as sent, device and browser from the User-Agent, and counts in the partner stats', async () => {
      const p = await createPartner(t, org);
      const link = await freshLink(p);
      const page = `https://shop.test/pricing?ref=${link.value}`;
      const referrer = 'https://blog.example.com/best-tools';
      const res = await track(clickBody(link, { page, referrer }), { 'User-Agent': UA.iphoneSafari });
      const data = expectTracked(res, { partner_id: p.id, program_id: org.program_id });

      const row = await clickRow(data.click_id);
      expect(row).toMatchObject({
        id: data.click_id,
        partner_id: p.id,
        link_id: link.id,
        program_id: org.program_id,
        organization_id: org.organization_id,
        page,
        referrer,
        device: 'mobile',
        browser: 'Safari',
        country: null,
        state: null,
      });
      expect((await partnerStats(t, org, p.id)).total_clicks).toBe(1);
    });

    it('classifies desktop and tablet User-Agents', async () => {
      const link = await freshLink();
      const desktop = expectTracked(await track(clickBody(link), { 'User-Agent': UA.linuxFirefox }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      const tablet = expectTracked(await track(clickBody(link), { 'User-Agent': UA.ipad }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      expect(await clickRow(desktop.click_id)).toMatchObject({ device: 'desktop', browser: 'Firefox', page: null, referrer: null });
      expect(await clickRow(tablet.click_id)).toMatchObject({ device: 'tablet', browser: 'Safari' });
    });

    it('ignores a country header when SVC_COUNTRY_HEADER is not configured', async () => {
      const link = await freshLink();
      const data = expectTracked(await track(clickBody(link), { 'cf-ipcountry': 'DE' }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      expect((await clickRow(data.click_id))?.country).toBeNull();
    });

    it('takes the country from SVC_COUNTRY_HEADER when configured (real codes only)', async () => {
      const cdn = await createTestApp({ storage: t.storage, env: { SVC_COUNTRY_HEADER: 'cf-ipcountry' } });
      try {
        const link = await freshLink();
        const de = expectTracked(await track(clickBody(link), { 'cf-ipcountry': 'de', 'User-Agent': UA.linuxFirefox }, cdn), {
          partner_id: partner.id,
          program_id: org.program_id,
        });
        const unknown = expectTracked(await track(clickBody(link), { 'cf-ipcountry': 'XX', 'User-Agent': UA.macSafari }, cdn), {
          partner_id: partner.id,
          program_id: org.program_id,
        });
        expect((await clickRow(de.click_id))?.country).toBe('DE');
        expect((await clickRow(unknown.click_id))?.country).toBeNull();
      } finally {
        await cdn.close();
      }
    });
  });

  it.each([
    ['a number', 12345],
    ['an object', { id: 'clk_x' }],
    ['an empty string', ''],
    ['an overlong string', `clk_${'x'.repeat(200)}`],
    ['an id nobody gave out', 'clk_000000000000000000000000'],
  ])('a damaged or foreign click_id hint (%s) never fails the click: a new click is recorded', async (_label, hint) => {
    const p = await createPartner(t, org);
    const link = await freshLink(p);
    const res = await track(clickBody(link, { click_id: hint }), { 'User-Agent': `${UA.macSafari} hint/${_label}` });
    const tracked = expectTracked(res, { partner_id: p.id, program_id: org.program_id });
    expect((await clicksOfLink(link.id)).map((c) => c.id)).toEqual([tracked.click_id]);
  });

  describe('repeat clicks', () => {
    it('the same IP and User-Agent on the same link within the hour get the same click, and no new row', async () => {
      const p = await createPartner(t, org);
      const link = await freshLink(p);
      const first = expectTracked(await track(clickBody(link)), { partner_id: p.id, program_id: org.program_id });
      const again = await track(clickBody(link));
      const second = expectTracked(again, { partner_id: p.id, program_id: org.program_id });
      expect(second.click_id).toBe(first.click_id);
      expect((await clicksOfLink(link.id)).map((c) => c.id)).toEqual([first.click_id]);
      expect((await partnerStats(t, org, p.id)).total_clicks).toBe(1);
    });

    it('another User-Agent from the same IP is another visitor: a new click', async () => {
      const link = await freshLink();
      const first = expectTracked(await track(clickBody(link), { 'User-Agent': UA.desktopChrome }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      const second = expectTracked(await track(clickBody(link), { 'User-Agent': UA.linuxFirefox }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      expect(second.click_id).not.toBe(first.click_id);
      expect((await clicksOfLink(link.id)).map((c) => c.id).sort()).toEqual([first.click_id, second.click_id].sort());
    });

    it('the click_id of the visitor’s cookie within the hour gets the same click, even from another User-Agent', async () => {
      const link = await freshLink();
      const first = expectTracked(await track(clickBody(link), { 'User-Agent': UA.desktopChrome }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      const res = await track(clickBody(link, { click_id: first.click_id }), { 'User-Agent': UA.macSafari });
      expect(expectTracked(res, { partner_id: partner.id, program_id: org.program_id }).click_id).toBe(first.click_id);
      expect((await clicksOfLink(link.id)).map((c) => c.id)).toEqual([first.click_id]);
    });

    it('a click_id older than an hour no longer deduplicates: a new click', async () => {
      const link = await freshLink();
      const first = expectTracked(await track(clickBody(link), { 'User-Agent': UA.desktopChrome }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      await ageClick(first.click_id, '2 hours');
      // Another User-Agent, so that only the body's click_id could match (the IP + User-Agent memory lasts an hour of real time).
      const res = await track(clickBody(link, { click_id: first.click_id }), { 'User-Agent': UA.ipad });
      const second = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      expect(second.click_id).not.toBe(first.click_id);
      expect(await clicksOfLink(link.id)).toHaveLength(2);
    });

    it('a click_id of another link does not deduplicate (another link → new click)', async () => {
      const linkA = await freshLink();
      const linkB = await freshLink();
      const a = expectTracked(await track(clickBody(linkA)), { partner_id: partner.id, program_id: org.program_id });
      const res = await track(clickBody(linkB, { click_id: a.click_id }));
      const b = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      expect(b.click_id).not.toBe(a.click_id);
      expect((await clicksOfLink(linkA.id)).map((c) => c.id)).toEqual([a.click_id]);
      expect((await clicksOfLink(linkB.id)).map((c) => c.id)).toEqual([b.click_id]);
    });

    it('dedup is per link: the same IP and User-Agent on another link of the same partner is a new click', async () => {
      const p = await createPartner(t, org);
      const linkA = await freshLink(p);
      const linkB = await freshLink(p);
      const a = expectTracked(await track(clickBody(linkA)), { partner_id: p.id, program_id: org.program_id });
      const b = expectTracked(await track(clickBody(linkB)), { partner_id: p.id, program_id: org.program_id });
      expect(b.click_id).not.toBe(a.click_id);
      expect((await partnerStats(t, org, p.id)).total_clicks).toBe(2);
    });

    it('five simultaneous identical clicks record one click, and all five answer it', async () => {
      const p = await createPartner(t, org);
      const link = await freshLink(p);
      await warmPool(t);
      const results = await Promise.all(Array.from({ length: 5 }, () => track(clickBody(link), { 'User-Agent': UA.macSafari })));
      const ids = results.map((r) => expectTracked(r, { partner_id: p.id, program_id: org.program_id }).click_id);
      expect(new Set(ids).size).toBe(1);
      const rows = await clicksOfLink(link.id);
      expect(rows.map((r) => r.id)).toEqual([ids[0]]);
      expect((await partnerStats(t, org, p.id)).total_clicks).toBe(1);
    });

    it('a repeat of a click that already converted answers its customer_id', async () => {
      const link = await freshLink();
      const first = expectTracked(await track(clickBody(link), { 'User-Agent': UA.linuxFirefox }), {
        partner_id: partner.id,
        program_id: org.program_id,
      });
      const signup = await t.request
        .post('/v1/track/signup')
        .send({ key: org.public_key, click_id: first.click_id, identifier: uniqueEmail('repeat') });
      expect(signup.status, JSON.stringify(signup.body)).toBe(201);
      const again = expectTracked(await track(clickBody(link, { click_id: first.click_id }), { 'User-Agent': UA.linuxFirefox }), {
        partner_id: partner.id,
        program_id: org.program_id,
        customer_id: signup.body.data.customer_id,
      });
      expect(again.click_id).toBe(first.click_id);
    });
  });

  describe('bots', () => {
    for (const [name, ua] of [
      ['HeadlessChrome', UA.headlessChrome],
      ['curl', UA.curl],
    ] as const) {
      it(`answers {success:true, data:null} to ${name} and records nothing`, async () => {
        const p = await createPartner(t, org);
        const link = await freshLink(p);
        const res = await track(clickBody(link), { 'User-Agent': ua });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toEqual({ success: true, data: null });
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['set-cookie']).toBeUndefined();
        expect(await clicksOfLink(link.id)).toHaveLength(0);
        expect((await partnerStats(t, org, p.id)).total_clicks).toBe(0);
      });
    }

    it('still checks the public key for bots', async () => {
      const link = await freshLink();
      expectError(await track(clickBody(link, {}, 'pk_doesNotExist123'), { 'User-Agent': UA.curl }), 401, 'authentication_error');
    });

    it('counts bots when SVC_BOT_FILTER=off', async () => {
      const open = await createTestApp({ storage: t.storage, env: { SVC_BOT_FILTER: 'off' } });
      try {
        const p = await createPartner(t, org);
        const link = await freshLink(p);
        const headless = expectTracked(await track(clickBody(link), { 'User-Agent': UA.headlessChrome }, open), {
          partner_id: p.id,
          program_id: org.program_id,
        });
        const curl = expectTracked(await track(clickBody(link), { 'User-Agent': UA.curl }, open), {
          partner_id: p.id,
          program_id: org.program_id,
        });
        expect(curl.click_id).not.toBe(headless.click_id);
        expect((await clicksOfLink(link.id)).map((c) => c.id).sort()).toEqual([headless.click_id, curl.click_id].sort());
        expect((await partnerStats(t, org, p.id)).total_clicks).toBe(2);
      } finally {
        await open.close();
      }
    });
  });

  describe('CORS', () => {
    for (const path of ['/v1/track/click', '/v1/track/signup']) {
      it(`answers the preflight of ${path} with 204 and an open policy`, async () => {
        const res = await t.request
          .options(path)
          .set('Origin', 'https://www.shop.test')
          .set('Access-Control-Request-Method', 'POST')
          .set('Access-Control-Request-Headers', 'content-type');
        expect(res.status).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['access-control-allow-methods']).toBe('POST');
        expect(res.headers['access-control-allow-headers']).toBe('Content-Type');
        expect(res.text ?? '').toBe('');
      });
    }

    it('every answer carries Access-Control-Allow-Origin * (200, 400, 401, 404)', async () => {
      const link = await freshLink();
      const answers = [
        await track(clickBody(link), { Origin: 'https://www.shop.test' }),
        await track(clickBody(link, { bogus: 1 }), { Origin: 'https://www.shop.test' }),
        await track(clickBody(link, {}, 'pk_doesNotExist123'), { Origin: 'https://www.shop.test' }),
        await track({ key: org.public_key, param: 'ref', value: uniqueLinkValue('none') }, { Origin: 'https://www.shop.test' }),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 400, 401, 404]);
      for (const r of answers) expect(r.headers['access-control-allow-origin']).toBe('*');
    });
  });

  describe('rate limit per IP address', () => {
    // Behind a trusted proxy, so that each test can be another client IP address.
    const { t: limited } = useTestApp({ sharesStorageWith: t, env: { SVC_TRACK_RATE_LIMIT: '3', SVC_TRUST_PROXY: 'true' } });

    // The limit counts a real second: each run that outlasts it is made again from other addresses.
    const inOneSecond = (scenario: (attempt: number) => Promise<void>) => inOneWindow(RATE_WINDOW_SECONDS * 1000, scenario);

    it('lets 3 requests a second through, then answers 429 rate_limit_error with Retry-After and CORS, recording nothing more', async () => {
      await inOneSecond(async (attempt) => {
        const link = await freshLink();
        const ip = { 'X-Forwarded-For': `203.0.113.${10 + attempt}` };
        const uas = [UA.desktopChrome, UA.linuxFirefox, UA.macSafari, UA.ipad];
        const results: Response[] = [];
        for (const ua of uas) results.push(await track(clickBody(link), { ...ip, 'User-Agent': ua }, limited));
        expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
        const refused = results[3];
        expectError(refused, 429, 'rate_limit_error');
        expect(refused.headers['retry-after']).toMatch(/^\d+$/);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(refused.headers['access-control-allow-origin']).toBe('*');
        expect(await clicksOfLink(link.id)).toHaveLength(3);

        // Another address is not affected.
        const other = await track(clickBody(link), { 'X-Forwarded-For': `203.0.113.${20 + attempt}`, 'User-Agent': UA.ipad }, limited);
        expect(other.status).toBe(200);
      });
    });

    it('counts clicks and signups from one address together', async () => {
      await inOneSecond(async (attempt) => {
        const link = await freshLink();
        const ip = { 'X-Forwarded-For': `203.0.113.${30 + attempt}` };
        const uas = [UA.desktopChrome, UA.linuxFirefox, UA.macSafari];
        const clicks: Response[] = [];
        for (const ua of uas) clicks.push(await track(clickBody(link), { ...ip, 'User-Agent': ua }, limited));
        expect(clicks.map((r) => r.status)).toEqual([200, 200, 200]);
        const signup = await limited.request
          .post('/v1/track/signup')
          .set(ip)
          .send({ key: org.public_key, click_id: clicks[0].body.data.click_id, identifier: uniqueEmail('limited') });
        expectError(signup, 429, 'rate_limit_error');
        expect(signup.headers['access-control-allow-origin']).toBe('*');
      });
    });
  });

  describe('attribution models', () => {
    let firstClick: ApiObject;
    let a: ApiObject;
    let b: ApiObject;

    beforeAll(async () => {
      firstClick = await createProgram(t, org);
      const put = await t.request.put(`/v1/programs/${firstClick.id}`).set(org.auth).send({ attribution_model: 'first_click' });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.data[0].attribution_model).toBe('first_click');
    });

    /** Fresh partners A and B of the first-click program, each with a fresh link. */
    async function pair(): Promise<{ la: ApiObject; lb: ApiObject }> {
      a = await createPartner(t, org, { program_id: firstClick.id, first_name: 'First' });
      b = await createPartner(t, org, { program_id: firstClick.id, first_name: 'Second' });
      return { la: await createLink(t, org, a), lb: await createLink(t, org, b) };
    }

    it('first_click keeps an earlier unexpired click of the program, yet records the new click', async () => {
      const { la, lb } = await pair();
      const first = expectTracked(await track(clickBody(la, {}, firstClick.public_key)), { partner_id: a.id, program_id: firstClick.id });
      const res = await track(clickBody(lb, { click_id: first.click_id }, firstClick.public_key));
      const kept = expectTracked(res, { partner_id: a.id, program_id: firstClick.id });
      expect(kept.click_id).toBe(first.click_id);
      expect(await clicksOfLink(lb.id)).toHaveLength(1);
      expect((await partnerStats(t, org, b.id)).total_clicks).toBe(1);
      expect((await partnerStats(t, org, a.id)).total_clicks).toBe(1);
    });

    it("first_click answers the kept click's remaining max_age", async () => {
      const { la, lb } = await pair();
      const first = expectTracked(await track(clickBody(la, {}, firstClick.public_key)), { partner_id: a.id, program_id: firstClick.id });
      await ageClick(first.click_id, '10 days');
      const res = await track(clickBody(lb, { click_id: first.click_id }, firstClick.public_key));
      expect(expectTracked(res, { partner_id: a.id, program_id: firstClick.id }, 20 * 86_400).click_id).toBe(first.click_id);
    });

    it('first_click does not keep an expired earlier click (older than cookie_duration)', async () => {
      const { la, lb } = await pair();
      const first = expectTracked(await track(clickBody(la, {}, firstClick.public_key)), { partner_id: a.id, program_id: firstClick.id });
      await ageClick(first.click_id, '31 days');
      const res = await track(clickBody(lb, { click_id: first.click_id }, firstClick.public_key));
      const data = expectTracked(res, { partner_id: b.id, program_id: firstClick.id });
      expect(data.click_id).not.toBe(first.click_id);
      expect((await clicksOfLink(lb.id)).map((c) => c.id)).toEqual([data.click_id]);
    });

    it('first_click ignores a click_id of another program', async () => {
      const { lb } = await pair();
      const elsewhere = expectTracked(await track(clickBody(await freshLink())), { partner_id: partner.id, program_id: org.program_id });
      const data = expectTracked(await track(clickBody(lb, { click_id: elsewhere.click_id }, firstClick.public_key)), {
        partner_id: b.id,
        program_id: firstClick.id,
      });
      expect(data.click_id).not.toBe(elsewhere.click_id);
    });

    it('first_click ignores an unknown click_id', async () => {
      const { lb } = await pair();
      const data = expectTracked(await track(clickBody(lb, { click_id: 'clk_doesnotexist' }, firstClick.public_key)), {
        partner_id: b.id,
        program_id: firstClick.id,
      });
      expect((await clicksOfLink(lb.id)).map((c) => c.id)).toEqual([data.click_id]);
    });

    it('first_click answers the customer_id when the kept click already converted', async () => {
      const { la, lb } = await pair();
      const first = expectTracked(await track(clickBody(la, {}, firstClick.public_key)), { partner_id: a.id, program_id: firstClick.id });
      const signup = await t.request
        .post('/v1/track/signup')
        .send({ key: firstClick.public_key, click_id: first.click_id, identifier: uniqueEmail('first') });
      expect(signup.status, JSON.stringify(signup.body)).toBe(201);
      const kept = expectTracked(await track(clickBody(lb, { click_id: first.click_id }, firstClick.public_key)), {
        partner_id: a.id,
        program_id: firstClick.id,
        customer_id: signup.body.data.customer_id,
      });
      expect(kept.click_id).toBe(first.click_id);
    });

    it('last_click (the default) answers the new click', async () => {
      const pa = await createPartner(t, org);
      const pb = await createPartner(t, org);
      const la = await createLink(t, org, pa);
      const lb = await createLink(t, org, pb);
      const first = expectTracked(await track(clickBody(la)), { partner_id: pa.id, program_id: org.program_id });
      const data = expectTracked(await track(clickBody(lb, { click_id: first.click_id })), {
        partner_id: pb.id,
        program_id: org.program_id,
      });
      expect(data.click_id).not.toBe(first.click_id);
      expect((await clicksOfLink(lb.id)).map((c) => c.id)).toEqual([data.click_id]);
    });
  });

  describe('same-site mode (cookies set by the response)', () => {
    const sameOrigin = (origin = 'https://www.shop.test') => ({ 'Sec-Fetch-Site': 'same-origin', Origin: origin });

    it('sets svc_data and svc_ref for the cookie_domain, Path=/, Secure, SameSite=Lax, Max-Age=max_age, and answers cookie:true', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, { cookie_domain: 'shop.test' }), sameOrigin());
      const data = expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
      expect(res.body.cookie).toBe(true);

      const cookies = setCookies(res);
      expect(Object.keys(cookies).sort()).toEqual(['svc_data', 'svc_ref']);
      expect(JSON.parse(decodeURIComponent(cookies.svc_data.value))).toEqual(data);
      expect(decodeURIComponent(cookies.svc_ref.value)).toBe(data.click_id);
      for (const c of Object.values(cookies)) {
        expect(c.attrs).toMatchObject({
          domain: 'shop.test',
          path: '/',
          secure: true,
          samesite: 'Lax',
          'max-age': String(res.body.max_age),
        });
        expect(c.attrs.httponly).toBeUndefined();
        const expires = Date.parse(String(c.attrs.expires));
        expect(Math.abs(expires - (Date.now() + res.body.max_age * 1000))).toBeLessThan(60_000);
      }
    });

    it('sets the Domain when cookie_domain is the Origin host itself', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, { cookie_domain: 'www.shop.test' }), sameOrigin());
      expect(res.body.cookie).toBe(true);
      expect(setCookies(res).svc_data.attrs.domain).toBe('www.shop.test');
    });

    it('leaves out Domain when cookie_domain is not the Origin host or a parent of it', async () => {
      const link = await freshLink();
      for (const cookieDomain of ['evil.test', 'op.test', 'sub.www.shop.test']) {
        const res = await track(clickBody(link, { cookie_domain: cookieDomain }), sameOrigin());
        expect(res.body.cookie).toBe(true);
        const cookies = setCookies(res);
        expect(Object.keys(cookies).sort()).toEqual(['svc_data', 'svc_ref']);
        for (const c of Object.values(cookies)) {
          expect(c.attrs.domain, cookieDomain).toBeUndefined();
          expect(c.attrs).toMatchObject({ path: '/', samesite: 'Lax', secure: true });
        }
      }
    });

    it('leaves out Domain on an IP address, whatever cookie_domain says', async () => {
      const link = await freshLink();
      for (const cookieDomain of ['0.1', '0.0.1', '127.0.0.1']) {
        const res = await track(clickBody(link, { cookie_domain: cookieDomain }), sameOrigin('http://127.0.0.1:3000'));
        expect(res.body.cookie).toBe(true);
        for (const c of Object.values(setCookies(res))) expect(c.attrs.domain, cookieDomain).toBeUndefined();
      }
    });

    it('leaves out Domain without a cookie_domain', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link), sameOrigin());
      expect(res.body.cookie).toBe(true);
      expect(setCookies(res).svc_ref.attrs.domain).toBeUndefined();
    });

    it('leaves out Secure for an http Origin', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, { cookie_domain: 'shop.test' }), sameOrigin('http://www.shop.test'));
      expect(res.body.cookie).toBe(true);
      for (const c of Object.values(setCookies(res))) {
        expect(c.attrs.secure).toBeUndefined();
        expect(c.attrs).toMatchObject({ domain: 'shop.test', path: '/', samesite: 'Lax' });
      }
    });

    it('sets no cookie without Sec-Fetch-Site: same-origin (cross-site, same-site or absent)', async () => {
      const link = await freshLink();
      const variants: Record<string, string>[] = [
        { Origin: 'https://www.shop.test' },
        { Origin: 'https://www.shop.test', 'Sec-Fetch-Site': 'cross-site' },
        { 'Sec-Fetch-Site': 'same-site' },
      ];
      for (const headers of variants) {
        const res = await track(clickBody(link, { cookie_domain: 'shop.test' }), headers);
        expectTracked(res, { partner_id: partner.id, program_id: org.program_id });
        expect(res.body.cookie).toBe(false);
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    });

    it('sets no cookie for a bot', async () => {
      const link = await freshLink();
      const res = await track(clickBody(link, { cookie_domain: 'shop.test' }), { ...sameOrigin(), 'User-Agent': UA.headlessChrome });
      expect(res.body).toEqual({ success: true, data: null });
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('first_click in same-site mode sets the kept click and its remaining Max-Age', async () => {
      const program = await createProgram(t, org);
      expect((await t.request.put(`/v1/programs/${program.id}`).set(org.auth).send({ attribution_model: 'first_click' })).status).toBe(200);
      const pa = await createPartner(t, org, { program_id: program.id });
      const pb = await createPartner(t, org, { program_id: program.id });
      const la = await createLink(t, org, pa);
      const lb = await createLink(t, org, pb);
      const first = expectTracked(await track(clickBody(la, {}, program.public_key)), { partner_id: pa.id, program_id: program.id });
      await ageClick(first.click_id, '5 days');
      const res = await track(clickBody(lb, { click_id: first.click_id, cookie_domain: 'shop.test' }, program.public_key), sameOrigin());
      const data = expectTracked(res, { partner_id: pa.id, program_id: program.id }, 25 * 86_400);
      expect(data.click_id).toBe(first.click_id);
      const cookies = setCookies(res);
      expect(JSON.parse(decodeURIComponent(cookies.svc_data.value))).toEqual(data);
      expect(cookies.svc_ref.value).toBe(first.click_id);
      expect(cookies.svc_data.attrs['max-age']).toBe(String(res.body.max_age));
      expect(Number(cookies.svc_data.attrs['max-age'])).toBeLessThanOrEqual((25 * DAY_MS) / 1000);
    });
  });
});
