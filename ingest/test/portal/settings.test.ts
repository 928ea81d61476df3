import { describe, expect, it } from 'vitest';
import { type ApiObject, createPartner, createProgram, getPartner, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { portalAgent } from '../support/portal.js';

/**
 * The portal's settings (ingest/docs/partner-portal.md): a partner changes their name, country,
 * payout method and details (as the API validates them, among the program's methods) and their
 * e-mail switches, and nothing else about themselves.
 */

/** The partner's fields the settings page may change, and those it never may. */
const OWN = [
  'first_name',
  'last_name',
  'country_code',
  'payout_method',
  'payout_details',
  'first_customer_email_active',
  'new_customer_email_active',
  'payout_paid_email_active',
];

describe('portal settings', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  async function signedIn(programFields: Record<string, unknown> = {}, partnerFields: Record<string, unknown> = {}) {
    const program = await createProgram(t, org, { payout_methods: ['paypal', 'bank_transfer'], ...programFields });
    const partner = await createPartner(t, org, {
      program_id: program.id,
      country_code: 'GB',
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
      ...partnerFields,
    });
    return { program, partner, ...(await portalAgent(t, program, partner.email)) };
  }
  /** The form as the page draws it for a PayPal partner, with every switch on; a field given as undefined is left out (a checkbox off). */
  const form = (csrf: string, fields: Record<string, string | undefined> = {}) =>
    Object.fromEntries(
      Object.entries({
        _csrf: csrf,
        first_name: 'Grace',
        last_name: 'Hopper',
        country_code: 'US',
        payout_method: 'paypal',
        details_for: 'paypal',
        'payout_details.email': 'grace@paypal.example',
        first_customer_email_active: 'on',
        new_customer_email_active: 'on',
        payout_paid_email_active: 'on',
        ...fields,
      }).filter((e): e is [string, string] => e[1] !== undefined),
    );
  const own = (p: ApiObject) => Object.fromEntries(OWN.map((k) => [k, p[k]]));

  it('shows the partner their settings, with only the methods the program pays by', async () => {
    const { partner, agent, base } = await signedIn({}, { new_customer_email_active: false });
    const page = await agent.get(`${base}/settings`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="${base}/settings"`);
    expect(page.text).toContain('name="_csrf"');
    expect(page.text).toContain(`value="${partner.first_name}"`);
    expect(page.text).toContain('<option value="GB" selected>');
    expect(page.text).toContain(`value="${partner.payout_details.email}"`);
    expect(page.text).toContain('<label for="payout-email">PayPal e-mail address</label>');
    const methods = [
      ...page.text.matchAll(/<option value="([a-z_]+)"[^>]*>(?:PayPal|Wise|Bank transfer|Wire transfer|Crypto|Decide later)/g),
    ];
    expect(methods.map((m) => m[1])).toEqual(['paypal', 'bank_transfer', 'none']);
    expect(page.text).toMatch(/name="first_customer_email_active" value="on" checked/);
    expect(page.text).not.toMatch(/name="new_customer_email_active" value="on" checked/);
    expect(page.text).toContain('aria-current="page">Settings</a>');
    expect(page.text).not.toMatch(/style=|<script>/);
  });

  it('saves the settings, as GET /v1/partners/:id then shows them', async () => {
    const { partner, agent, csrf, base } = await signedIn();
    const res = await agent
      .post(`${base}/settings`)
      .type('form')
      .send(form(csrf, { new_customer_email_active: undefined, payout_paid_email_active: undefined }));
    expect(res.status, res.text).toBe(303);
    expect(res.headers.location).toBe(`${base}/settings?notice=settings-saved`);
    expect(own(await getPartner(t, org, partner.id))).toEqual({
      first_name: 'Grace',
      last_name: 'Hopper',
      country_code: 'US',
      payout_method: 'paypal',
      payout_details: { email: 'grace@paypal.example' },
      first_customer_email_active: true,
      new_customer_email_active: false,
      payout_paid_email_active: false,
    });
    const page = await agent.get(res.headers.location);
    expect(page.text).toContain('Settings saved.');
    expect(page.text).toContain('value="Grace"');
  });

  it('changes the payout method, then asks for and saves its details', async () => {
    const { partner, agent, csrf, base } = await signedIn();
    // The PayPal address typed with the old method's fields is not taken for the new method.
    const changed = await agent
      .post(`${base}/settings`)
      .type('form')
      .send(form(csrf, { payout_method: 'bank_transfer' }));
    expect(changed.status, changed.text).toBe(303);
    expect(changed.headers.location).toBe(`${base}/settings?notice=payout-method-changed`);
    expect(own(await getPartner(t, org, partner.id))).toMatchObject({ payout_method: 'bank_transfer', payout_details: {} });
    const page = await agent.get(changed.headers.location);
    expect(page.text).toContain('Payout method changed.');
    expect(page.text).toContain('<label for="payout-iban">IBAN</label>');
    expect(page.text).toContain('name="details_for" value="bank_transfer"');
    expect(page.text).not.toContain('payout_details.email');

    const bank = {
      payout_method: 'bank_transfer',
      details_for: 'bank_transfer',
      'payout_details.email': '',
      'payout_details.account_holder_name': 'Grace Hopper',
      'payout_details.iban': 'GB82WEST12345698765432',
      'payout_details.swift_bic': 'NWBKGB2L',
      'payout_details.country_code': 'GB',
      'payout_details.sort_code': '',
    };
    const saved = await agent.post(`${base}/settings`).type('form').send(form(csrf, bank));
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.location).toBe(`${base}/settings?notice=settings-saved`);
    expect((await getPartner(t, org, partner.id)).payout_details).toEqual({
      account_holder_name: 'Grace Hopper',
      iban: 'GB82WEST12345698765432',
      swift_bic: 'NWBKGB2L',
      country_code: 'GB',
    });
    expect((await agent.get(`${base}/settings`)).text).toContain('value="GB82WEST12345698765432"');
  });

  /** The message shown beside the field of this id, or undefined. */
  const besideField = (html: string, id: string) => new RegExp(`<span class="field-error" id="${id}-error">([^<]*)</span>`).exec(html)?.[1];

  it('refuses invalid details and a method the program does not offer with the form again, and changes nothing', async () => {
    const { partner, agent, csrf, base } = await signedIn();
    const before = own(await getPartner(t, org, partner.id));

    // The message beside the field it is about, in plain words; every value as typed; a summary at the top for screen readers.
    const badEmail = await agent
      .post(`${base}/settings`)
      .type('form')
      .send(
        form(csrf, {
          first_name: 'Typed',
          country_code: 'FR',
          new_customer_email_active: undefined,
          'payout_details.email': 'not-an-address',
        }),
      );
    expect(badEmail.status).toBe(400);
    expect(badEmail.text).toContain('<p class="error" role="alert">This form was not saved: see the message beside the field.</p>');
    expect(besideField(badEmail.text, 'payout-email')).toBe('Must be an e-mail address.');
    expect(badEmail.text).toMatch(/id="payout-email" aria-invalid="true" aria-describedby="payout-email-error"/);
    expect(badEmail.text).not.toMatch(/Invalid email|Invalid payout_details/);
    expect(badEmail.text).toContain('value="Typed"');
    expect(badEmail.text).toContain('value="Hopper"');
    expect(badEmail.text).toContain('<option value="FR" selected>');
    expect(badEmail.text).toContain('value="not-an-address"');
    expect(badEmail.text).toMatch(/name="first_customer_email_active" value="on" checked/);
    expect(badEmail.text).not.toMatch(/name="new_customer_email_active" value="on" checked/);
    // Only the field refused is marked.
    expect([...badEmail.text.matchAll(/aria-invalid="true"/g)]).toHaveLength(1);

    const badIban = await agent
      .post(`${base}/settings`)
      .type('form')
      .send(form(csrf, { payout_method: 'bank_transfer', details_for: 'bank_transfer', 'payout_details.iban': 'GB82 WEST 1234' }));
    expect(badIban.status).toBe(400);
    expect(besideField(badIban.text, 'payout-iban')).toBe('Must be an IBAN without spaces.');
    expect(badIban.text).toContain('value="GB82 WEST 1234"');

    for (const method of ['crypto', 'wise', 'bitcoin']) {
      const refused = await agent
        .post(`${base}/settings`)
        .type('form')
        .send(form(csrf, { payout_method: method, details_for: method }));
      expect(refused.status, method).toBe(400);
      expect(besideField(refused.text, 'payout_method'), method).toMatch(
        method === 'bitcoin' ? /^Must be one of / : /^This program does not pay by that method\.$/,
      );
    }
    const noName = await agent
      .post(`${base}/settings`)
      .type('form')
      .send(form(csrf, { last_name: '' }));
    expect(noName.status).toBe(400);
    expect(besideField(noName.text, 'last_name')).toBe('This is required.');
    const badCountry = await agent
      .post(`${base}/settings`)
      .type('form')
      .send(form(csrf, { country_code: 'XX' }));
    expect(badCountry.status).toBe(400);
    expect(besideField(badCountry.text, 'country_code')).toMatch(/\.$/);

    expect(own(await getPartner(t, org, partner.id))).toEqual(before);
  });

  it("keeps a method the program no longer offers, and reads none of the program's fields", async () => {
    const { program, partner, agent, csrf, base } = await signedIn({}, { payout_method: 'wise', payout_details: {} });
    const page = await agent.get(`${base}/settings`);
    expect(page.text).toContain('Wise (no longer offered)');
    const before = await getPartner(t, org, partner.id);
    const group = await t.request.post('/v1/groups').set(org.auth).send({ program_id: program.id, name: 'Elsewhere' });
    expect(group.status).toBe(201);
    const res = await agent
      .post(`${base}/settings`)
      .type('form')
      .send({
        ...form(csrf, { payout_method: 'wise', details_for: 'wise', 'payout_details.email': 'grace@wise.example' }),
        status: 'suspended',
        email: uniqueEmail('hijack'),
        group_id: group.body.data[0].id,
        internal_note: 'written by the partner',
        rejection_note: 'x',
        completed_onboarding: 'false',
        'payout_details.iban': 'GB82WEST12345698765432',
      });
    expect(res.status, res.text).toBe(303);
    const after = await getPartner(t, org, partner.id);
    expect(after).toMatchObject({
      status: 'active',
      email: before.email,
      group_id: before.group_id,
      internal_note: before.internal_note,
      rejection_note: before.rejection_note,
      completed_onboarding: before.completed_onboarding,
      payout_method: 'wise',
      payout_details: { email: 'grace@wise.example' },
    });
  });

  it("refuses a form without the session's token or from another site with the expired-form page, and changes nothing", async () => {
    const { program, partner, agent, csrf, base } = await signedIn();
    const before = own(await getPartner(t, org, partner.id));
    const sent = [
      await agent
        .post(`${base}/settings`)
        .type('form')
        .send(form(csrf, { _csrf: undefined })),
      await agent
        .post(`${base}/settings`)
        .type('form')
        .send(form('x'.repeat(csrf.length))),
      await agent.post(`${base}/settings`).set('Sec-Fetch-Site', 'cross-site').type('form').send(form(csrf)),
      await agent.post(`${base}/settings`).set('Origin', 'https://elsewhere.example').type('form').send(form(csrf)),
    ];
    for (const refused of sent) {
      // The portal's page in the program's name, not bare text: what happened, and the page to send the form from again.
      expect(refused.status).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.text).toContain('<h1>This form has expired</h1>');
      expect(refused.text).toContain(`<title>This form has expired · ${program.name} partners</title>`);
      expect(refused.text).toContain('so nothing was saved');
      expect(refused.text).toContain(`<a href="${base}/settings">Open the page again</a>`);
    }
    expect(own(await getPartner(t, org, partner.id))).toEqual(before);
    // The same form with the token is taken.
    expect((await agent.post(`${base}/settings`).type('form').send(form(csrf))).status).toBe(303);
    expect((await getPartner(t, org, partner.id)).first_name).toBe('Grace');
  });
});
