import { describe, expect, it } from 'vitest';
import { dashboardAgent } from '../support/dashboard.js';
import { type ApiObject, createLink, createPartner, createProgram, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { emailCausedBy } from '../support/outbox.js';

/**
 * A partner's link is shown the same way in the dashboard's partner page and in the e-mail a
 * portal sign-up sends (shareableLink, ingest/docs/partner-portal.md#sharing-a-link): the full
 * address on the merchant's site, or, while the program has no website address, a sentence
 * saying how to get one and no bare `?ref=…`. The portal's home: ingest/test/portal/home.test.ts.
 */

const fromHtml = (html: string) => html.replace(/&amp;/g, '&').replace(/&#39;/g, "'");
const copies = (html: string) => [...html.matchAll(/data-copy="([^"]*)"/g)].map((m) => fromHtml(m[1]));

describe("a partner's shareable link", () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  async function partnerPage(program: ApiObject, partner: ApiObject): Promise<string> {
    const { agent } = await dashboardAgent(t, org);
    const res = await agent.get(`/dashboard/programs/${program.id}/partners/${partner.id}`);
    expect(res.status).toBe(200);
    return res.text;
  }

  it("is the program's website address with the link in the dashboard, copied as shown; without one, Settings is named instead", async () => {
    const site = await createProgram(t, org, { website_url: 'https://acme.example/shop?lang=en', url_params: ['ref', 'via'] });
    const partner = await createPartner(t, org, { program_id: site.id });
    const ref = await createLink(t, org, partner);
    const via = await createLink(t, org, partner, { param: 'via' });
    const page = await partnerPage(site, partner);
    const urls = [`https://acme.example/shop?lang=en&ref=${ref.value}`, `https://acme.example/shop?lang=en&via=${via.value}`];
    expect(copies(page).sort()).toEqual(urls.sort());
    for (const url of urls) expect(page).toContain(`<code class="url">${url.replace(/&/g, '&amp;')}</code>`);
    expect(page).not.toContain('to get shareable links');

    const bare = await createProgram(t, org);
    const p2 = await createPartner(t, org, { program_id: bare.id });
    const l2 = await createLink(t, org, p2);
    const text = await partnerPage(bare, p2);
    expect(text).toContain(
      `<a href="/dashboard/programs/${bare.id}/settings">Add the program's website address in Settings to get shareable links</a>.`,
    );
    expect(copies(text)).toEqual([]);
    expect(text).not.toContain(`<code>?ref=${l2.value}</code>`);
    // The link is still named, for its edit and delete buttons.
    expect(text).toContain(`ref: ${l2.value}`);
  });

  it('is in the e-mail of a sign-up approved at once, and left out without a website address', async () => {
    const join = async (program: ApiObject) => {
      const email = uniqueEmail('ada');
      const queued = await emailCausedBy(t, { to: email, kind: 'partner_application' }, async () => {
        const res = await t.request
          .post(`/p/${program.subdomain}/join`)
          .type('form')
          .send({ first_name: 'Ada', last_name: 'Lovelace', email, country_code: 'GB', payout_method: 'paypal' });
        expect(res.status, res.text).toBe(200);
      });
      const [partner] = (await t.request.get('/v1/partners').query({ program_id: program.id, email }).set(org.auth)).body.data;
      const [link] = (await t.request.get('/v1/links').query({ program_id: program.id, partner_id: partner.id }).set(org.auth)).body.data;
      return { text: queued.text_body, link };
    };

    const site = await createProgram(t, org, { website_url: 'https://acme.example/', auto_approve_partners: true });
    const withSite = await join(site);
    expect(withSite.text).toContain(`Your link to share: https://acme.example/?ref=${withSite.link.value}`);

    const bare = await createProgram(t, org, { auto_approve_partners: true });
    const without = await join(bare);
    expect(without.link.value).toMatch(/^ada/);
    expect(without.text).not.toContain('Your link to share');
    expect(without.text).not.toContain(`?ref=${without.link.value}`);

    // A pending application gets no link yet: it counts once the partner is approved.
    const pending = await join(await createProgram(t, org, { website_url: 'https://acme.example/' }));
    expect(pending.text).not.toContain('Your link to share');
  });
});
