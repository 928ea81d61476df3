import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectLinkNotFound } from '../support/expect-error.js';
import {
  type ApiObject,
  createClick,
  createLink,
  createPartner,
  createProgram,
  postClick,
  type TestOrg,
  uniqueLinkValue,
} from '../support/factories.js';
import { CLICK_FIELDS } from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

const UA = {
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  desktopChrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  androidChrome: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
};

describe('POST /v1/clicks', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;
  let link: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org);
    link = await createLink(t, org, partner, { param: 'ref', value: uniqueLinkValue('alice') });
  });

  const clickRow = (id: string) => t.storage.db.selectFrom('clicks').selectAll().where('id', '=', id).executeTakeFirst();
  const clickCount = async () => (await t.storage.db.selectFrom('clicks').select('id').execute()).length;

  /** Expects a refusal and that no click row was written by it. */
  async function expectRefused(body: Record<string, unknown>, status: number, type: string, param?: string, who: TestOrg = org) {
    const before = await clickCount();
    const res = await postClick(t, who, body);
    expectError(res, status, type, param);
    expect(await clickCount()).toBe(before);
    return res;
  }

  describe('method 1: partner_id', () => {
    it('records a click for the partner with exactly the Partnership Program API’s fields, and stores it in SQL', async () => {
      const res = await postClick(t, org, { partner_id: partner.id });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const click = res.body.data[0];
      expect(Object.keys(click).sort()).toEqual([...CLICK_FIELDS].sort());
      expect(click).toMatchObject({
        partner_id: partner.id,
        link_id: null,
        country: null,
        state: null,
        device: null,
        page: null,
        browser: null,
        referrer: null,
        program_id: org.program_id,
        organization_id: org.organization_id,
      });
      expect(click.id).toMatch(/^clk_[0-9A-Za-z]{24}$/);
      expect(click.created_at).toMatch(ISO_MS);
      expect(click.updated_at).toBe(click.created_at);

      const row = await clickRow(click.id);
      expect(row).toMatchObject({
        organization_id: org.organization_id,
        program_id: org.program_id,
        partner_id: partner.id,
        link_id: null,
        country: null,
        state: null,
        device: null,
        page: null,
        browser: null,
        referrer: null,
      });
      expect(row?.created_at.toISOString()).toBe(click.created_at);
    });

    it('records the link when link_id is one of the partner’s links', async () => {
      const click = await createClick(t, org, { partner_id: partner.id, link_id: link.id });
      expect(click).toMatchObject({ partner_id: partner.id, link_id: link.id, program_id: link.program_id });
      expect((await clickRow(click.id))?.link_id).toBe(link.id);
    });

    it('takes the program of a partner in a second program', async () => {
      const program = await createProgram(t, org);
      const p = await createPartner(t, org, { program_id: program.id });
      const click = await createClick(t, org, { partner_id: p.id });
      expect(click.program_id).toBe(program.id);
      expect((await clickRow(click.id))?.program_id).toBe(program.id);
      // program_id, when given with method 1, must be the partner's program.
      await expectRefused({ partner_id: p.id, program_id: org.program_id }, 400, 'invalid_request_error', 'program_id');
      expect((await createClick(t, org, { partner_id: p.id, program_id: program.id })).program_id).toBe(program.id);
    });

    it('refuses another partner’s link with 400 param link_id', async () => {
      const other = await createPartner(t, org);
      await expectRefused({ partner_id: other.id, link_id: link.id }, 400, 'invalid_request_error', 'link_id');
    });

    it('answers 404 for an unknown link_id, an unknown partner, and link_id without partner_id is 400', async () => {
      await expectRefused({ partner_id: partner.id, link_id: 'lnk_nosuchlink0000000000000' }, 404, 'not_found_error', 'link_id');
      await expectRefused({ partner_id: 'part_nosuchpartner000000000' }, 404, 'not_found_error', 'partner_id');
      await expectRefused({ link_id: link.id }, 400, 'invalid_request_error', 'partner_id');
    });

    it('answers 404 for another organization’s partner or link', async () => {
      const foreign = await createPartner(t, otherOrg);
      const foreignLink = await createLink(t, otherOrg, foreign);
      await expectRefused({ partner_id: foreign.id }, 404, 'not_found_error', 'partner_id');
      await expectRefused({ partner_id: partner.id, link_id: foreignLink.id }, 404, 'not_found_error', 'link_id');
      // And the other way round.
      await expectRefused({ partner_id: partner.id }, 404, 'not_found_error', 'partner_id', otherOrg);
      await expectRefused({ partner_id: foreign.id, link_id: link.id }, 404, 'not_found_error', 'link_id', otherOrg);
    });
  });

  describe('method 2: param and value', () => {
    it('resolves the link, its partner and program, comparing the value case-insensitively', async () => {
      for (const value of [link.value, link.value.toUpperCase()]) {
        const res = await postClick(t, org, { param: 'ref', value });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const click = res.body.data[0];
        expect(Object.keys(click).sort()).toEqual([...CLICK_FIELDS].sort());
        expect(click).toMatchObject({
          partner_id: partner.id,
          link_id: link.id,
          program_id: org.program_id,
          organization_id: org.organization_id,
        });
        expect(await clickRow(click.id)).toMatchObject({ partner_id: partner.id, link_id: link.id, program_id: org.program_id });
      }
    });

    it('answers exactly {success:false, error:"Link not found"} with 404 for an unknown param/value', async () => {
      const before = await clickCount();
      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: 'nobody-here' }));
      // A known value under another param, and a param the program does not use.
      expectLinkNotFound(await postClick(t, org, { param: 'via', value: link.value }));
      expectLinkNotFound(await postClick(t, org, { param: 'aff', value: link.value }));
      // A prefix is not a match.
      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: link.value.slice(0, -1) }));
      expect(await clickCount()).toBe(before);
    });

    it('answers 400 when the value is in two programs of the organization, and picks the right one with program_id', async () => {
      const value = uniqueLinkValue('twice');
      const program2 = await createProgram(t, org);
      const partner2 = await createPartner(t, org, { program_id: program2.id });
      const link1 = await createLink(t, org, partner, { param: 'ref', value });
      const link2 = await createLink(t, org, partner2, { param: 'ref', value: value.toUpperCase() });

      await expectRefused({ param: 'ref', value }, 400, 'invalid_request_error', 'program_id');

      const c1 = await createClick(t, org, { param: 'ref', value, program_id: org.program_id });
      expect(c1).toMatchObject({ link_id: link1.id, partner_id: partner.id, program_id: org.program_id });
      const c2 = await createClick(t, org, { param: 'ref', value, program_id: program2.id });
      expect(c2).toMatchObject({ link_id: link2.id, partner_id: partner2.id, program_id: program2.id });
      expect((await clickRow(c2.id))?.program_id).toBe(program2.id);

      // Once one of them is gone the lookup without program_id is unambiguous again.
      expect((await t.request.delete(`/v1/links/${link1.id}`).set(org.auth)).status).toBe(200);
      expect((await createClick(t, org, { param: 'ref', value })).link_id).toBe(link2.id);
    });

    it('with program_id, answers "Link not found" when the value lives only in another program', async () => {
      const program2 = await createProgram(t, org);
      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: link.value, program_id: program2.id }));
      expect((await createClick(t, org, { param: 'ref', value: link.value, program_id: org.program_id })).link_id).toBe(link.id);
    });

    it('answers 404 for a program_id of another organization or an unknown one', async () => {
      await expectRefused({ param: 'ref', value: link.value, program_id: otherOrg.program_id }, 404, 'not_found_error', 'program_id');
      await expectRefused(
        { param: 'ref', value: link.value, program_id: 'prg_nosuchprogram00000000000' },
        404,
        'not_found_error',
        'program_id',
      );
    });

    it('does not resolve another organization’s param/value', async () => {
      expectLinkNotFound(await postClick(t, otherOrg, { param: 'ref', value: link.value }));
    });
  });

  describe('choosing a method', () => {
    it.each([
      ['partner_id with param and value', () => ({ partner_id: partner.id, param: 'ref', value: link.value }), undefined],
      ['partner_id with value', () => ({ partner_id: partner.id, value: link.value }), undefined],
      ['link_id with param', () => ({ link_id: link.id, param: 'ref' }), undefined],
      ['neither (empty body)', () => ({}), undefined],
      ['neither (only optional fields)', () => ({ country: 'DE', device: 'mobile' }), undefined],
      ['param without value', () => ({ param: 'ref' }), 'value'],
      ['value without param', () => ({ value: link.value }), 'param'],
      ['an empty value', () => ({ param: 'ref', value: '' }), 'value'],
      ['a non-string value', () => ({ param: 'ref', value: 5 }), 'value'],
      ['an unknown key', () => ({ partner_id: partner.id, ip: '1.2.3.4' }), 'ip'],
      ['a state (not accepted)', () => ({ partner_id: partner.id, state: 'CA' }), 'state'],
      ['a browser (comes from the User-Agent)', () => ({ partner_id: partner.id, browser: 'Chrome' }), 'browser'],
    ])('refuses %s with 400', async (_label, body, param) => {
      await expectRefused(body(), 400, 'invalid_request_error', param);
    });

    it('requires a valid API key', async () => {
      const res = await t.request.post('/v1/clicks').send({ partner_id: partner.id });
      expectError(res, 401, 'authentication_error');
    });
  });

  describe('optional fields', () => {
    it('stores country, device, page and referrer; a lower-case country becomes upper case; state stays null', async () => {
      const body = {
        param: 'ref',
        value: link.value,
        country: 'de',
        device: 'tablet',
        page: 'https://shop.example.com/pricing?plan=pro#top',
        referrer: 'http://blog.example.org/post/1',
      };
      const click = await createClick(t, org, body);
      expect(click).toMatchObject({
        country: 'DE',
        device: 'tablet',
        page: body.page,
        referrer: body.referrer,
        state: null,
        browser: null,
      });
      expect(await clickRow(click.id)).toMatchObject({
        country: 'DE',
        device: 'tablet',
        page: body.page,
        referrer: body.referrer,
        state: null,
      });
    });

    it.each([
      ['country', 'ZZ'],
      ['country', 'DEU'],
      ['country', 'D'],
      ['country', 12],
      ['device', 'phone'],
      ['device', 'Desktop'],
      ['device', ''],
      ['page', 'not a url'],
      ['page', 'javascript:alert(1)'],
      ['page', 'ftp://files.example.com/a'],
      ['referrer', 'javascript:alert(document.cookie)'],
      ['referrer', 'data:text/html,hi'],
      ['referrer', '//example.com/no-scheme'],
    ])('refuses %s %j with 400', async (field, value) => {
      await expectRefused({ partner_id: partner.id, [field]: value }, 400, 'invalid_request_error', field);
    });

    it.each([['page'], ['referrer']])('caps %s at 2048 characters', async (field) => {
      const prefix = 'https://example.com/';
      const at = prefix + 'a'.repeat(2048 - prefix.length);
      expect(at).toHaveLength(2048);
      const click = await createClick(t, org, { partner_id: partner.id, [field]: at });
      expect(click[field]).toBe(at);
      expect((await clickRow(click.id))?.[field as 'page' | 'referrer']).toBe(at);
      await expectRefused({ partner_id: partner.id, [field]: `${at}a` }, 400, 'invalid_request_error', field);
    });
  });

  describe('browser and device from the User-Agent', () => {
    it.each([
      ['an iPhone Safari', UA.iphoneSafari, 'mobile', 'Safari'],
      ['an iPad', UA.ipad, 'tablet', 'Safari'],
      ['a desktop Chrome', UA.desktopChrome, 'desktop', 'Chrome'],
      ['an Android Chrome', UA.androidChrome, 'mobile', 'Chrome'],
      ['a Linux Firefox', UA.linuxFirefox, 'desktop', 'Firefox'],
    ])('derives them from %s User-Agent', async (_label, ua, device, browser) => {
      const click = await createClick(t, org, { param: 'ref', value: link.value }, { 'User-Agent': ua });
      expect(click).toMatchObject({ device, browser });
      expect(await clickRow(click.id)).toMatchObject({ device, browser });
    });

    it('leaves both null without a User-Agent', async () => {
      const res = await t.request.post('/v1/clicks').set(org.auth).send({ partner_id: partner.id });
      expect(res.status).toBe(201);
      expect(res.body.data[0]).toMatchObject({ device: null, browser: null });
      expect(await clickRow(res.body.data[0].id)).toMatchObject({ device: null, browser: null });
    });

    it('leaves both null (not empty strings) for a User-Agent that names no browser', async () => {
      for (const ua of ['curl/8.5.0', 'python-requests/2.31.0']) {
        const click = await createClick(t, org, { partner_id: partner.id }, { 'User-Agent': ua });
        expect(click).toMatchObject({ device: null, browser: null });
        expect(await clickRow(click.id)).toMatchObject({ device: null, browser: null });
      }
    });

    it('keeps a device given in the body over the User-Agent’s, still taking the browser from it', async () => {
      const click = await createClick(t, org, { partner_id: partner.id, device: 'desktop' }, { 'User-Agent': UA.iphoneSafari });
      expect(click).toMatchObject({ device: 'desktop', browser: 'Safari' });
      expect(await clickRow(click.id)).toMatchObject({ device: 'desktop', browser: 'Safari' });
    });
  });

  describe('country from a trusted CDN header', () => {
    // A second app over the same storage, configured to trust the Cloudflare country header.
    const { t: cdn } = useTestApp({ sharesStorageWith: t, env: { SVC_COUNTRY_HEADER: 'cf-ipcountry' } });

    it('takes the country from the configured header', async () => {
      for (const [header, country] of [
        ['DE', 'DE'],
        ['fr', 'FR'],
      ]) {
        const click = await createClick(cdn, org, { param: 'ref', value: link.value }, { 'CF-IPCountry': header });
        expect(click.country).toBe(country);
        expect((await clickRow(click.id))?.country).toBe(country);
      }
    });

    it.each([['XX'], ['T1'], ['garbage'], ['ZZ'], ['']])('stores null for the header value %j', async (header) => {
      const click = await createClick(cdn, org, { partner_id: partner.id }, { 'CF-IPCountry': header });
      expect(click.country).toBeNull();
      expect((await clickRow(click.id))?.country).toBeNull();
    });

    it('prefers a country given in the body', async () => {
      const click = await createClick(cdn, org, { partner_id: partner.id, country: 'it' }, { 'CF-IPCountry': 'DE' });
      expect(click.country).toBe('IT');
      expect((await clickRow(click.id))?.country).toBe('IT');
    });

    it('ignores the header on an app where it is not configured', async () => {
      const click = await createClick(t, org, { partner_id: partner.id }, { 'CF-IPCountry': 'DE' });
      expect(click.country).toBeNull();
      expect((await clickRow(click.id))?.country).toBeNull();
    });

    it('leaves state null even with the header', async () => {
      const click = await createClick(cdn, org, { partner_id: partner.id }, { 'CF-IPCountry': 'US', 'CF-Region-Code': 'CA' });
      expect(click).toMatchObject({ country: 'US', state: null });
    });
  });
});
