import { describe, expect, it } from 'vitest';
import { previewPayment } from '../../src/resources/flows/flow-preview.js';
import { dashboardAgent } from '../support/dashboard.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueCode,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's program settings (ingest/docs/dashboard.md): every form goes through the API's
 * schema and service, so what the pages save is what the API then answers; a refused form comes
 * back with what was typed and the reason beside its field; the flow preview is the engine's own
 * plan. The browser flows are in e2e/dashboard-settings.spec.ts.
 */

const withoutTimes = ({ updated_at: _u, ...rest }: ApiObject) => rest;

describe('dashboard settings', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  const programOf = async (org: TestOrg, id: string) => (await t.request.get(`/v1/programs/${id}`).set(org.auth)).body.data;
  const flowOf = async (org: TestOrg, id: string) => (await t.request.get(`/v1/flows/${id}`).set(org.auth)).body.data;
  const flowsOf = async (org: TestOrg, programId: string) =>
    (await t.request.get('/v1/flows').set(org.auth).query({ program_id: programId, limit: 100 })).body.data as ApiObject[];

  it('saves the program settings through the API: the API then answers what the form said', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const url = `/dashboard/programs/${program.id}/settings`;
    const page = await agent.get(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="30"');
    expect(page.text).toContain('value="ref, via"');

    const saved = await agent.post(url).type('form').send({
      _csrf: csrf,
      name: 'Renamed program',
      cookie_duration: '60',
      url_params: 'ref, partner via',
      attribution_model: 'first_click',
      currency_code: 'JPY',
      minimum_payout: '5,000',
    });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.location).toBe(`${url}?notice=settings-saved`);
    expect(await programOf(org, program.id)).toMatchObject({
      name: 'Renamed program',
      cookie_duration: 60,
      url_params: ['ref', 'partner', 'via'],
      attribution_model: 'first_click',
      currency_code: 'JPY',
      // Yen have no minor unit: 5,000 yen is 5000 of the API's units.
      minimum_payout: 5000,
    });
    const after = await agent.get(`${url}?notice=settings-saved`);
    expect(after.text).toContain('Program settings saved.');
    expect(after.text).toContain('value="5000"');

    await agent.post(url).type('form').send({ _csrf: csrf, currency_code: 'EUR', minimum_payout: '49.50' });
    expect(await programOf(org, program.id)).toMatchObject({ currency_code: 'EUR', minimum_payout: 4950, name: 'Renamed program' });
  });

  it('sets who can join the partner portal, auto-approval, the site and the terms (ingest/docs/partner-portal.md)', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const url = `/dashboard/programs/${program.id}/settings`;
    const page = await agent.get(url);
    expect(page.text).toContain(`/p/${program.subdomain}</a>`);
    const base = { _csrf: csrf, name: program.name, cookie_duration: '30', url_params: 'ref', currency_code: 'USD', minimum_payout: '0' };
    const saved = await agent
      .post(url)
      .type('form')
      .send({ ...base, type: 'private', auto_approve_partners: 'on', website_url: 'https://shop.example/', partner_terms: 'Be fair.' });
    expect(saved.status, saved.text).toBe(303);
    expect(await programOf(org, program.id)).toMatchObject({
      type: 'private',
      auto_approve_partners: true,
      website_url: 'https://shop.example/',
      partner_terms: 'Be fair.',
    });
    // Unticked and emptied: auto-approval off, the site and terms cleared.
    await agent
      .post(url)
      .type('form')
      .send({ ...base, type: 'public', website_url: '', partner_terms: '' });
    expect(await programOf(org, program.id)).toMatchObject({
      type: 'public',
      auto_approve_partners: false,
      website_url: null,
      partner_terms: null,
    });
    const bad = await agent
      .post(url)
      .type('form')
      .send({ ...base, website_url: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="website_url-error">Must be a web address starting with https://.<');
    expect(bad.text).toContain('value="not a url"');
  });

  it("shows the website address first, and says why it matters while it is empty (partners' links need it)", async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const url = `/dashboard/programs/${program.id}/settings`;
    const empty = await agent.get(url);
    expect(empty.text).toContain('<fieldset class="website missing"><legend>Your website</legend>');
    expect(empty.text).toContain('Not set yet: partners have no link to share.');
    // It is the form's first field.
    expect(empty.text.indexOf('name="website_url"')).toBeLessThan(empty.text.indexOf('name="name"'));
    await agent.post(url).type('form').send({ _csrf: csrf, website_url: 'https://shop.example/' }).expect(303);
    const set = await agent.get(url);
    expect(set.text).toContain('<fieldset class="website"><legend>Your website</legend>');
    expect(set.text).toContain('value="https://shop.example/"');
    expect(set.text).not.toContain('Not set yet');
  });

  it('refuses bad values with the form again: the reason beside the field in words, what was typed kept, nothing changed', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const url = `/dashboard/programs/${program.id}/settings`;
    const before = await programOf(org, program.id);
    const good = { _csrf: csrf, name: 'Still fine', cookie_duration: '30', url_params: 'ref', currency_code: 'USD', minimum_payout: '0' };
    const refused: [Record<string, string>, string, RegExp][] = [
      [{ cookie_duration: '0' }, 'cookie_duration', /^Must be at least 1\.$/],
      [{ cookie_duration: 'soon' }, 'cookie_duration', /^Must be a number\.$/],
      [{ currency_code: 'XYZ' }, 'currency_code', /\S/],
      [{ url_params: 'Ref!' }, 'url_params', /\S/],
      [{ minimum_payout: '12.345' }, 'minimum_payout', /^Enter an amount in USD, e\.g\. 49\.00\.$/],
      [{ minimum_payout: '-5' }, 'minimum_payout', /^(Enter an amount|Must be at least 0)/],
      [{ attribution_model: 'any_click' }, 'attribution_model', /^Must be one of last_click, first_click\.$/],
      [{ name: ' ' }, 'name', /\S/],
    ];
    for (const [bad, field, words] of refused) {
      const res = await agent
        .post(url)
        .type('form')
        .send({ ...good, name: 'Typed name', ...bad });
      const label = JSON.stringify(bad);
      expect(res.status, label).toBe(400);
      expect(res.text, label).not.toContain('Cannot do that');
      expect(res.text, label).toContain('This form was not saved: see the message beside the field.');
      const message = new RegExp(`id="${field}-error">([^<]*)<`).exec(res.text)?.[1];
      expect(message, label).toMatch(words);
      // No parameter names or zod wording in what a person reads.
      expect(message, label).not.toMatch(/Invalid|expected/);
      expect(message, label).not.toContain(field);
      expect(res.text, label).toMatch(new RegExp(`id="${field}" aria-invalid="true"`));
      if (field !== 'attribution_model' && field !== 'currency_code') expect(res.text, label).toContain(`value="${Object.values(bad)[0]}"`);
      if (field !== 'name') expect(res.text, label).toContain('value="Typed name"');
    }
    expect(await programOf(org, program.id)).toEqual(before);
  });

  it('creates and edits a flow through the form: the API then answers the same flow', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const group = (await t.request.post('/v1/groups').set(org.auth).send({ program_id: program.id, name: 'VIP' })).body.data[0];
    const base = `/dashboard/programs/${program.id}/settings/flows`;
    expect((await agent.get(`${base}/new`)).status).toBe(200);

    const created = await agent.post(base).type('form').send({
      _csrf: csrf,
      name: 'First payment bonus',
      trigger: 'payment',
      group_id: group.id,
      reward_type: 'percentage',
      reward_value: '12.5',
      rate_product_0: 'pro',
      rate_type_0: 'fixed',
      rate_value_0: '7.00',
      rate_product_1: '',
      rate_type_1: 'percentage',
      rate_value_1: '',
      cond_subject_0: 'customer.transaction_count',
      cond_op_0: 'eq',
      cond_value_0: '1',
      cond_subject_1: 'transaction.amount',
      cond_op_1: 'gte',
      cond_value_1: '10.00',
      cond_subject_2: 'partner.country_code',
      cond_op_2: 'in',
      cond_value_2: 'FR, DE',
      cond_subject_3: '',
      cond_op_3: 'eq',
      cond_value_3: '',
      approval_type: 'scheduled',
      approval_delay_days: '14',
      active: 'on',
    });
    expect(created.status, created.text).toBe(303);
    const id = /\/settings\/flows\/(flw_[^?]+)\?notice=flow-created$/.exec(created.headers.location)?.[1];
    expect(id).toBeDefined();
    const flow = await flowOf(org, id!);
    expect(flow).toMatchObject({
      name: 'First payment bonus',
      trigger: 'payment',
      group_id: group.id,
      program_id: program.id,
      active: true,
      default: false,
      reward: { type: 'percentage', value: 12.5, product_rates: [{ product_id: 'pro', type: 'fixed', value: 700 }] },
      conditions: [
        { subject: 'customer.transaction_count', op: 'eq', value: 1 },
        { subject: 'transaction.amount', op: 'gte', value: 1000 },
        { subject: 'partner.country_code', op: 'in', value: ['FR', 'DE'] },
      ],
      approval: { type: 'scheduled', delay_days: 14 },
    });

    // The edit page shows the flow as the form reads it back: saving it unchanged changes nothing.
    const edit = await agent.get(`${base}/${id}`);
    expect(edit.status).toBe(200);
    const fields = formFields(edit.text, `${base}/${id}`);
    expect(fields).toMatchObject({ reward_value: '12.5', rate_value_0: '7.00', cond_value_1: '10.00', cond_value_2: 'FR, DE' });
    const same = await agent
      .post(`${base}/${id}`)
      .type('form')
      .send({ ...fields, _csrf: csrf });
    expect(same.status, same.text).toBe(303);
    expect(withoutTimes(await flowOf(org, id!))).toEqual(withoutTimes(flow));

    // Edited: all partners, a fixed reward, no conditions, approved at once, inactive.
    const edited = await agent.post(`${base}/${id}`).type('form').send({
      _csrf: csrf,
      name: 'Flat five',
      trigger: 'payment',
      group_id: '',
      reward_type: 'fixed',
      reward_value: '5',
      rate_product_0: '',
      rate_type_0: 'percentage',
      rate_value_0: '',
      cond_subject_0: '',
      cond_op_0: 'eq',
      cond_value_0: '',
      approval_type: 'immediate',
      approval_delay_days: '30',
    });
    expect(edited.status, edited.text).toBe(303);
    expect(await flowOf(org, id!)).toMatchObject({
      name: 'Flat five',
      group_id: null,
      reward: { type: 'fixed', value: 500 },
      conditions: [],
      approval: { type: 'immediate' },
      active: false,
    });
    expect((await flowOf(org, id!)).reward.product_rates).toBeUndefined();

    // The API's rules, not the dashboard's: a signup flow needs a fixed reward; a text subject has no "≥".
    const before = await flowOf(org, id!);
    // Each comes back as the form with what was typed, the reason beside the field it is about.
    const refusals: [Record<string, string>, string][] = [
      [{ trigger: 'signup', reward_type: 'percentage', reward_value: '10' }, 'reward-type'],
      [{ cond_subject_0: 'transaction.product_id', cond_op_0: 'gte', cond_value_0: 'x' }, 'cond_op_0'],
      [{ reward_type: 'percentage', reward_value: '101' }, 'reward-value'],
      [{ reward_type: 'fixed', reward_value: '5.001' }, 'reward-value'],
      [{ cond_subject_0: 'customer.transaction_count', cond_op_0: 'eq', cond_value_0: 'first' }, 'cond_value_0'],
      // A blank row first: the row refused is the form's second, shown again as the first filled one.
      [{ cond_subject_0: '', cond_subject_1: 'customer.transaction_count', cond_op_1: 'eq', cond_value_1: 'first' }, 'cond_value_0'],
    ];
    for (const [bad, fieldId] of refusals) {
      const res = await agent
        .post(`${base}/${id}`)
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Typed flow',
          trigger: 'payment',
          reward_type: 'fixed',
          reward_value: '5',
          approval_type: 'immediate',
          ...bad,
        });
      const label = JSON.stringify(bad);
      expect(res.status, label).toBe(400);
      expect(res.text, label).toMatch(new RegExp(`id="${fieldId}-error">[^<]+<`));
      expect(res.text, label).toContain('value="Typed flow"');
      for (const value of Object.values(bad).filter((v) => v !== '' && !v.includes('.') && !/^[a-z]+$/.test(v))) {
        expect(res.text, label).toContain(`value="${value}"`);
      }
    }
    expect(await flowOf(org, id!)).toEqual(before);
    // A new flow refused keeps what was typed too, and creates nothing.
    const count = (await flowsOf(org, program.id)).length;
    const refusedNew = await agent.post(base).type('form').send({
      _csrf: csrf,
      name: 'Too generous',
      trigger: 'payment',
      reward_type: 'percentage',
      reward_value: '150',
      approval_type: 'manual',
    });
    expect(refusedNew.status).toBe(400);
    expect(refusedNew.text).toContain('id="reward-value-error">Must be at most 100.<');
    expect(refusedNew.text).toContain('value="Too generous"');
    expect(refusedNew.text).toContain('value="150"');
    expect(refusedNew.text).toContain('<option value="manual" selected>');
    expect(await flowsOf(org, program.id)).toHaveLength(count);

    // Deleted: the API no longer lists it.
    const deleted = await agent.post(`${base}/${id}/delete`).type('form').send({ _csrf: csrf });
    expect(deleted.headers.location).toBe(`${base}?notice=flow-deleted`);
    expect((await flowsOf(org, program.id)).map((f) => f.id)).not.toContain(id);
  });

  it('previews what a payment earns: the same commissions a real payment then gets', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const base = `/dashboard/programs/${program.id}/settings/flows`;
    const flowForm = (name: string, extra: Record<string, string>) => ({
      _csrf: csrf,
      name,
      trigger: 'payment',
      group_id: '',
      approval_type: 'immediate',
      active: 'on',
      ...extra,
    });
    // The default flow (20 %, scheduled) stays; a first-payment bonus and a big-payment flow that will not match.
    await agent
      .post(base)
      .type('form')
      .send(
        flowForm('Bonus', {
          reward_type: 'fixed',
          reward_value: '5.00',
          cond_subject_0: 'customer.transaction_count',
          cond_op_0: 'eq',
          cond_value_0: '1',
        }),
      )
      .expect(303);
    await agent
      .post(base)
      .type('form')
      .send(
        flowForm('Big', {
          reward_type: 'percentage',
          reward_value: '33.33',
          cond_subject_0: 'transaction.amount',
          cond_op_0: 'gte',
          cond_value_0: '100.00',
        }),
      )
      .expect(303);

    const partner = await createPartner(t, org, { program_id: program.id });
    const page = await agent.get(base).query({ amount: '49.00', partner: partner.email });
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('Pays $14.80 in commission');

    const preview = await previewPayment(t.deps.db, org.organization_id, program.id, { amount: 4900, partner_id: partner.id });
    const customer = await createCustomer(t, org, partner);
    const listed = await commissionsOf(t, org, await createTransaction(t, org, customer, { amount: 4900 }));
    // The API's short commission names neither its flow nor its approval: read them from SQL.
    const flowIds = await t.deps.db
      .selectFrom('commissions')
      .select(['id', 'flow_id', 'approval_type'])
      .where(
        'id',
        'in',
        listed.map((c) => c.id),
      )
      .execute();
    const paid: ApiObject[] = listed.map((c) => ({ ...c, ...flowIds.find((r) => r.id === c.id) }));
    const shape = (c: ApiObject) => ({
      flow_id: c.flow_id,
      amount: Number(c.amount),
      status: c.status,
      approval_type: c.approval_type,
    });
    const byAmount = (a: { amount: number }, b: { amount: number }) => a.amount - b.amount;
    expect(paid.map(shape).sort(byAmount)).toEqual(preview.commissions.map((c) => shape({ ...c })).sort(byAmount));
    expect(preview.total).toBe(980 + 500);

    // The second payment: the bonus no longer applies, in the preview as in the real payment.
    const second = await agent.get(base).query({ amount: '150', partner: partner.email, payment_number: '2' });
    expect(second.text).toContain('Pays $80.00 in commission');
    const again = await commissionsOf(t, org, await createTransaction(t, org, customer, { amount: 15_000 }));
    expect(again.reduce((s, c) => s + c.amount, 0)).toBe(3000 + 5000);

    // A suspended partner earns nothing, and the preview says so; bad input is shown, not thrown.
    const suspended = await createPartner(t, org, { program_id: program.id, status: 'suspended' });
    const none = await agent.get(base).query({ amount: '49.00', partner: suspended.email });
    expect(none.text).toContain('Pays $0.00 in commission');
    expect(none.text).toContain('only active partners earn');
    const bad = await agent.get(base).query({ amount: 'lots' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="preview-amount-error">Enter an amount in USD, e.g. 49.00.<');
    expect(bad.text).toContain('value="lots"');
    const nobody = uniqueEmail('nobody');
    const stranger = await agent.get(base).query({ amount: '10', partner: nobody });
    expect(stranger.status).toBe(400);
    expect(stranger.text).toContain(`id="preview-partner-error">No partner of this program has the e-mail ${nobody}.<`);
  });

  it("answers 404 for another organization's or another program's flow, group, code and program", async () => {
    const [org, other] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const otherFlow = (await flowsOf(other, other.program_id))[0];
    const ownProgram = await createProgram(t, org);
    const siblingFlow = (await flowsOf(org, ownProgram.id))[0];
    const otherGroup = (await t.request.post('/v1/groups').set(other.auth).send({ program_id: other.program_id, name: 'Theirs' })).body
      .data[0];
    const otherCode = (
      await t.request
        .post('/v1/promotion-codes')
        .set(other.auth)
        .send({ program_id: other.program_id, code: uniqueCode(), type: 'percentage', value: 10 })
    ).body.data[0];
    const mine = `/dashboard/programs/${org.program_id}/settings`;

    expect((await agent.get(`/dashboard/programs/${other.program_id}/settings`)).status).toBe(404);
    expect((await agent.get(`/dashboard/programs/${other.program_id}/settings/flows`)).status).toBe(404);
    const otherSave = await agent
      .post(`/dashboard/programs/${other.program_id}/settings`)
      .type('form')
      .send({ _csrf: csrf, name: 'Mine now' });
    expect(otherSave.status).toBe(404);
    for (const flow of [otherFlow, siblingFlow]) {
      expect((await agent.get(`${mine}/flows/${flow.id}`)).status).toBe(404);
      const edit = await agent
        .post(`${mine}/flows/${flow.id}`)
        .type('form')
        .send({ _csrf: csrf, name: 'Hijacked', reward_type: 'fixed', reward_value: '1', approval_type: 'immediate' });
      expect(edit.status).toBe(404);
      expect((await agent.post(`${mine}/flows/${flow.id}/delete`).type('form').send({ _csrf: csrf })).status).toBe(404);
    }
    expect((await agent.get(`${mine}/groups/${otherGroup.id}`)).status).toBe(404);
    expect((await agent.post(`${mine}/groups/${otherGroup.id}`).type('form').send({ _csrf: csrf, name: 'Hijacked' })).status).toBe(404);
    expect(
      (await agent.post(`${mine}/promotion-codes/${otherCode.id}/active`).type('form').send({ _csrf: csrf, active: 'false' })).status,
    ).toBe(404);
    expect((await agent.post(`${mine}/promotion-codes/${otherCode.id}/delete`).type('form').send({ _csrf: csrf })).status).toBe(404);
    // A flow of another program may not be given a group of this one either (the service's own check).
    const preview = await agent.get(`${mine}/flows`).query({ amount: '10', group_id: otherGroup.id });
    expect(preview.status).toBe(400);

    // Nothing of theirs changed.
    expect(await flowOf(other, otherFlow.id)).toEqual(otherFlow);
    expect(await flowOf(org, siblingFlow.id)).toEqual(siblingFlow);
    expect((await t.request.get(`/v1/groups/${otherGroup.id}`).set(other.auth)).body.data.name).toBe('Theirs');
    expect((await t.request.get(`/v1/promotion-codes/${otherCode.id}`).set(other.auth)).body.data.active).toBe(true);
    expect((await programOf(other, other.program_id)).name).not.toBe('Mine now');
  });

  it('refuses every settings form without the CSRF token', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const before = await programOf(org, program.id);
    const flowsBefore = await flowsOf(org, program.id);
    const base = `/dashboard/programs/${program.id}/settings`;
    const forms: [string, Record<string, string>][] = [
      [base, { name: 'Forged', cookie_duration: '1' }],
      [`${base}/flows`, { name: 'Forged', reward_type: 'fixed', reward_value: '1000', approval_type: 'immediate', active: 'on' }],
      [
        `${base}/flows/${flowsBefore[0].id}`,
        { name: 'Forged', reward_type: 'percentage', reward_value: '100', approval_type: 'immediate' },
      ],
      [`${base}/flows/${flowsBefore[0].id}/delete`, {}],
      [`${base}/groups`, { name: 'Forged' }],
      [`${base}/promotion-codes`, { code: 'FORGED', type: 'percentage', value: '100' }],
    ];
    for (const [url, body] of forms) {
      expect((await agent.post(url).type('form').send(body)).status, url).toBe(403);
      expect(
        (
          await agent
            .post(url)
            .type('form')
            .send({ ...body, _csrf: 'x'.repeat(43) })
        ).status,
        url,
      ).toBe(403);
    }
    expect(await programOf(org, program.id)).toEqual(before);
    expect(await flowsOf(org, program.id)).toEqual(flowsBefore);
    expect((await t.request.get('/v1/groups').set(org.auth).query({ program_id: program.id })).body.total_count).toBe(1);
    expect((await t.request.get('/v1/promotion-codes').set(org.auth).query({ program_id: program.id })).body.total_count).toBe(0);
  });

  it('answers a stale form with the dashboard\'s page "This form has expired" (403; 401 once signed out), and changes nothing', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const url = `/dashboard/programs/${program.id}/settings`;
    const before = await programOf(org, program.id);
    const expired = (res: { status: number; text: string; headers: Record<string, string> }, status: number, label: string) => {
      expect(res.status, label).toBe(status);
      expect(res.headers['content-type'], label).toMatch(/^text\/html/);
      expect(res.text, label).toContain('<h1>This form has expired</h1>');
      expect(res.text, label).toContain('nothing was saved');
      expect(res.text, label).toContain('<a href="/dashboard">Back to the dashboard</a>');
      expect(res.text, label).toContain('<link rel="stylesheet" href="/dashboard/assets/dashboard.css?v=');
    };
    // A token of another session (the page was opened before signing in again), or a form from another site.
    expired(
      await agent
        .post(url)
        .type('form')
        .send({ _csrf: 'x'.repeat(43), name: 'Stale' }),
      403,
      'another token',
    );
    expired(
      await agent.post(url).set('Origin', 'https://evil.example').type('form').send({ _csrf: csrf, name: 'Stale' }),
      403,
      'another site',
    );
    // The logo form's multipart body is read before the check, and refused the same way.
    const upload = await agent.post(`${url}/branding`).field('_csrf', 'x'.repeat(43)).field('accent_color_text', '#0b3d2e');
    expired(upload, 403, 'multipart');
    // Signed out in another tab: the form's session has ended.
    await agent.post('/dashboard/sign-out').type('form').send({ _csrf: csrf }).expect(303);
    expired(await agent.post(url).type('form').send({ _csrf: csrf, name: 'Stale' }), 401, 'signed out');
    expect(await programOf(org, program.id)).toEqual(before);
  });

  it('creates and edits groups, with a minimum payout of their own', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org, 'member');
    const program = await createProgram(t, org);
    const base = `/dashboard/programs/${program.id}/settings/groups`;
    expect((await agent.get(base)).text).toContain('Only the default group so far');

    const created = await agent
      .post(base)
      .type('form')
      .send({ _csrf: csrf, name: 'Influencers', description: 'Big audiences', minimum_payout: '100.00' });
    expect(created.status, created.text).toBe(303);
    const id = /\/groups\/(grp_[^?]+)\?/.exec(created.headers.location)![1];
    const groupOf = async () => (await t.request.get(`/v1/groups/${id}`).set(org.auth)).body.data;
    expect(await groupOf()).toMatchObject({ name: 'Influencers', description: 'Big audiences', minimum_payout: 10_000, default: false });

    // Cleared minimum: the program's again; made the default.
    await agent
      .post(`${base}/${id}`)
      .type('form')
      .send({ _csrf: csrf, name: 'Influencers', description: '', minimum_payout: '', default: 'on' })
      .expect(303);
    expect(await groupOf()).toMatchObject({ description: null, minimum_payout: null, default: true });
    const groups = (await t.request.get('/v1/groups').set(org.auth).query({ program_id: program.id })).body.data as ApiObject[];
    expect(groups.filter((g) => g.default).map((g) => g.id)).toEqual([id]);

    const lot = await agent.post(`${base}/${id}`).type('form').send({ _csrf: csrf, name: 'Renamed', minimum_payout: 'a lot' });
    expect(lot.status).toBe(400);
    expect(lot.text).toContain('id="group-minimum-error">Enter an amount in USD, e.g. 49.00.<');
    expect(lot.text).toContain('value="a lot"');
    expect(lot.text).toContain('value="Renamed"');
    expect((await groupOf()).name).toBe('Influencers');
    // A new group refused: the list again, its form open with what was typed.
    const unnamed = await agent.post(base).type('form').send({ _csrf: csrf, name: '', description: 'Typed', minimum_payout: '5' });
    expect(unnamed.status).toBe(400);
    expect(unnamed.text).toContain('<details class="add" open>');
    expect(unnamed.text).toContain('id="new-group-name-error">This is required.<');
    expect(unnamed.text).toContain('>Typed</textarea>');
    // The default group cannot be deleted (the API's rule): its page says why; another one can.
    const kept = await agent.post(`${base}/${id}/delete`).type('form').send({ _csrf: csrf });
    expect(kept.status).toBe(400);
    expect(kept.text).toContain(
      '<p class="error" role="alert">The default group cannot be deleted; make another group the default first.</p>',
    );
    const old = groups.find((g) => g.id !== id)!;
    expect((await agent.post(`${base}/${old.id}/delete`).type('form').send({ _csrf: csrf })).headers.location).toBe(
      `${base}?notice=group-deleted`,
    );
    const page = await agent.get(base);
    expect(page.text).toContain('Influencers');
    expect(page.text).not.toContain(old.id);
  });

  it('creates promotion codes for a partner, a group or the program, deactivates and deletes them', async () => {
    const [org] = orgs;
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });
    const base = `/dashboard/programs/${program.id}/settings/promotion-codes`;
    expect((await agent.get(base)).text).toContain('No promotion codes yet');
    const code = uniqueCode('ALICE');
    const created = await agent
      .post(base)
      .type('form')
      .send({ _csrf: csrf, code, type: 'fixed', value: '10.50', partner: partner.email, group_id: '' });
    expect(created.status, created.text).toBe(303);
    await agent
      .post(base)
      .type('form')
      .send({ _csrf: csrf, code: uniqueCode('ALL'), type: 'percentage', value: '15' })
      .expect(303);
    const list = async () =>
      (await t.request.get('/v1/promotion-codes').set(org.auth).query({ program_id: program.id, order: 'asc' })).body.data as ApiObject[];
    const [mine, all] = await list();
    expect(mine).toMatchObject({ code, type: 'fixed', value: 1050, partner_id: partner.id, entity_type: 'partner', active: true });
    expect(all).toMatchObject({ type: 'percentage', value: 15, entity_type: 'program' });

    // The API's rules: a duplicate (any case) is a 409, a percentage over 100 a 400, a partner not
    // in the program a 400; each the form again, open, with the reason beside its field.
    const duplicate = await agent.post(base).type('form').send({ _csrf: csrf, code: code.toLowerCase(), type: 'percentage', value: '5' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.text).toContain('<details class="add" open>');
    expect(duplicate.text).toContain('id="code-code-error">A promotion code with this code already exists in the program.<');
    expect(duplicate.text).toContain(`value="${code.toLowerCase()}"`);
    const tooMuch = await agent.post(base).type('form').send({ _csrf: csrf, code: uniqueCode(), type: 'percentage', value: '150' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toMatch(/id="code-value-error">Must be (at most 100|0–100)/);
    expect(tooMuch.text).toContain('value="150"');
    const stranger = await agent
      .post(base)
      .type('form')
      .send({ _csrf: csrf, code: uniqueCode(), type: 'fixed', value: '3.00', partner: uniqueEmail('nobody') });
    expect(stranger.status).toBe(400);
    expect(stranger.text).toMatch(/id="code-partner-error">No partner of this program has the e-mail/);
    expect(stranger.text).toContain('<option value="fixed" selected>');
    expect((await list()).length).toBe(2);

    await agent.post(`${base}/${mine.id}/active`).type('form').send({ _csrf: csrf, active: 'false' }).expect(303);
    expect((await list())[0].active).toBe(false);
    const page = await agent.get(base);
    expect(page.text).toContain('$10.50 off');
    expect(page.text).toContain(`Activate ${code}`);
    await agent.post(`${base}/${all.id}/delete`).type('form').send({ _csrf: csrf }).expect(303);
    expect((await list()).map((c) => c.id)).toEqual([mine.id]);
  });
});

/** The named fields of the form posting to `action`, as the browser would send them (checkboxes when checked). */
function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  for (const m of form.matchAll(/<input([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1])?.[1];
    if (!name) continue;
    if (/type="checkbox"/.test(m[1])) {
      if (/\schecked/.test(m[1])) fields[name] = 'on';
      continue;
    }
    fields[name] = decode(/value="([^"]*)"/.exec(m[1])?.[1] ?? '');
  }
  for (const m of form.matchAll(/<select[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const options = [...m[2].matchAll(/<option([^>]*)>/g)];
    const chosen = options.find((o) => /\sselected/.test(o[1])) ?? options[0];
    fields[m[1]] = decode(/value="([^"]*)"/.exec(chosen?.[1] ?? '')?.[1] ?? '');
  }
  return fields;
}
