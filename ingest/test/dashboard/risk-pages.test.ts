import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { countOpenRiskEventsOfPartners } from '../../src/resources/risk/risk.repository.js';
import { checkClickFlooding } from '../../src/resources/risk/risk-job.js';
import { CHROME_ON_LINUX, SAFARI_ON_MAC } from '../support/browsers.js';
import { dashboardAgent, textOf } from '../support/dashboard.js';
import {
  type ApiObject,
  createCustomer,
  createLink,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's Risk page, the flagged partners' badge and Settings › Risk rules
 * (ingest/docs/dashboard.md#risk) through HTTP. Risk events are made by the real paths, as a
 * client's requests make them: a customer whose e-mail is their partner's (self_referral) or at a
 * disposable provider (disposable_email), through POST /v1/customers. Each decision is checked
 * in SQL. The rules themselves: ingest/docs/risk.md; the browser flow: e2e/risk.spec.ts.
 */

/** The field's message beside it (`<span class="field-error" id="<id>-error">`) as text, or null. */
function messageBeside(html: string, id: string): string | null {
  const message = new RegExp(`<span class="field-error" id="${id}-error">([^<]*)</span>`).exec(html)?.[1];
  return message === undefined ? null : textOf(message);
}

describe('dashboard: risk', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });

  const db = () => t.storage.db;
  const riskPath = (program: ApiObject, rest = '') => `/dashboard/programs/${program.id}/risk${rest}`;

  /**
   * An active partner of the program whose customer signed up with the partner's own e-mail (as
   * typed otherwise: case) and paid $100: a self-referral event holding the $20.00 commission of
   * the default flow. Answers the partner, the customer and the event as the API shows it.
   */
  async function selfReferral(program: ApiObject, first_name: string, who: TestOrg = org) {
    const partner = await createPartner(t, who, { program_id: program.id, first_name, last_name: 'Stone', status: 'active' });
    const customer = await createCustomer(t, who, partner, { email: partner.email.toUpperCase() });
    await createTransaction(t, who, customer, { amount: 10_000 });
    const events = await t.request.get('/v1/risk-events').set(who.auth).query({ partner_id: partner.id });
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    expect(events.body.data.map((e: ApiObject) => e.rule)).toEqual(['self_referral']);
    return { partner, customer, event: events.body.data[0] as ApiObject };
  }

  /** A customer of the partner at a disposable e-mail provider: a disposable_email event. */
  async function disposable(who: TestOrg, partner: ApiObject) {
    const customer = await createCustomer(t, who, partner, { email: `deal-${partner.id.slice(-6).toLowerCase()}@mailinator.com` });
    const events = await t.request.get('/v1/risk-events').set(who.auth).query({ partner_id: partner.id, rule: 'disposable_email' });
    expect(events.body.data).toHaveLength(1);
    return { customer, event: events.body.data[0] as ApiObject };
  }

  const eventRow = (id: string) =>
    db().selectFrom('risk_events').select(['status', 'resolution', 'resolution_reason']).where('id', '=', id).executeTakeFirstOrThrow();
  const commissionsOfPartner = (partnerId: string) =>
    db().selectFrom('commissions').select(['status', 'rejection_reason']).where('partner_id', '=', partnerId).execute();
  const partnerRow = (id: string) =>
    db().selectFrom('partners').select(['status', 'suspension_reason']).where('id', '=', id).executeTakeFirstOrThrow();

  it('lists open events by partner and rule, with what matched in words, the customer and the money held; the navigation counts them', async () => {
    const { agent } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const emma = await selfReferral(program, 'Emma');
    const { customer: throwaway } = await disposable(org, emma.partner);
    await selfReferral(program, 'Ben');

    const page = await agent.get(riskPath(program));
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      'Risk <span class="nav-count" aria-hidden="true">3</span><span class="visually-hidden">(3 open risk events)</span>',
    );
    const text = textOf(page.text);
    // Newest first: Ben's group, then Emma's with her two rules.
    expect(text.indexOf('Ben Stone')).toBeLessThan(text.indexOf('Emma Stone'));
    const emmaGroup = textOf(
      /<section class="risk-partner" aria-labelledby="risk-partner-[^"]+">((?:(?!<\/section>)[\s\S])*Emma Stone[\s\S]*?)<\/section>/.exec(
        page.text,
      )![1],
    );
    expect(emmaGroup).toContain('2 open risk events');
    expect(emmaGroup).toContain("Self-referral The customer's e-mail is the partner's e-mail");
    expect(emmaGroup).toContain(`Customer ${emma.customer.email}`);
    expect(emmaGroup).toContain("Money held $20.00 in 1 commission Holds this customer's commissions");
    expect(emmaGroup).toContain('Disposable e-mail Disposable e-mail domain mailinator.com');
    expect(emmaGroup).toContain(`Customer ${throwaway.email}`);
    expect(emmaGroup).toContain("Money held Nothing yet Holds this customer's commissions as they are earned");
    expect(page.text).toContain(`<a href="/dashboard/programs/${program.id}/partners/${emma.partner.id}">Emma Stone</a>`);
    expect(page.text).toContain(`<a href="/dashboard/programs/${program.id}/customers/${emma.customer.id}">`);
    // Each open event offers the three decisions.
    expect(page.text).toContain(`action="/dashboard/programs/${program.id}/risk/${emma.event.id}/resolve"`);
    expect(page.text).toContain('id="reject-reason-');
    expect(page.text).toContain('id="ban-reason-');

    // Filtered by rule; nothing resolved yet.
    const disposableOnly = textOf((await agent.get(riskPath(program, '?rule=disposable_email'))).text);
    expect(disposableOnly).toContain('Disposable e-mail domain mailinator.com');
    expect(disposableOnly).not.toContain('Ben Stone');
    expect(textOf((await agent.get(riskPath(program, '?status=resolved'))).text)).toContain('No risk event has been resolved yet.');
  });

  it('dismisses, rejects the commissions and bans the partner, each with its reason in SQL; without a reason nothing changes', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const [ann, ben, cid] = [await selfReferral(program, 'Ann'), await selfReferral(program, 'Ben'), await selfReferral(program, 'Cid')];
    const cidDisposable = await disposable(org, cid.partner);
    const resolve = (event: ApiObject, fields: Record<string, string>, token = csrf) =>
      agent
        .post(riskPath(program, `/${event.id}/resolve`))
        .type('form')
        .send({ _csrf: token, back: '?rule=self_referral', ...fields });

    // Refused: a rejection or a ban without a reason, the form open again with the message beside
    // its field; a form without the session's token. Nothing changed.
    const noReason = await resolve(ben.event, { action: 'reject_commissions', reason: '  ' });
    expect(noReason.status).toBe(400);
    expect(messageBeside(noReason.text, `reject-reason-${ben.event.id}`)).toBe(
      'Give a reason to reject these commissions: the partner sees it.',
    );
    expect(noReason.text).toMatch(
      new RegExp(
        `<details class="inline" open><summary class="button">Reject commissions…</summary><form method="post" action="[^"]*/${ben.event.id}/resolve"`,
      ),
    );
    const noBanReason = await resolve(cid.event, { action: 'ban_partner' });
    expect(noBanReason.status).toBe(400);
    expect(messageBeside(noBanReason.text, `ban-reason-${cid.event.id}`)).toBe('Give a reason to ban the partner: they see it.');
    expect((await resolve(ann.event, { action: 'dismiss' }, 'forged')).status).toBe(403);
    for (const e of [ann, ben, cid])
      expect(await eventRow(e.event.id)).toEqual({ status: 'open', resolution: null, resolution_reason: null });
    expect(await commissionsOfPartner(ben.partner.id)).toEqual([{ status: 'pending', rejection_reason: null }]);
    expect((await partnerRow(cid.partner.id)).status).toBe('active');

    // Dismiss: the event no longer holds; the commission goes on, pending.
    const dismissed = await resolve(ann.event, { action: 'dismiss' });
    expect(dismissed.status, dismissed.text).toBe(303);
    expect(dismissed.headers.location).toBe(riskPath(program, '?rule=self_referral&notice=risk-dismissed'));
    expect(await eventRow(ann.event.id)).toEqual({ status: 'resolved', resolution: 'dismiss', resolution_reason: null });
    expect(await commissionsOfPartner(ann.partner.id)).toEqual([{ status: 'pending', rejection_reason: null }]);
    const after = await agent.get(dismissed.headers.location);
    expect(textOf(after.text)).toContain('Risk event dismissed');
    expect(after.text).not.toContain(`/${ann.event.id}/resolve`);

    // Reject its commissions, with the reason the partner sees.
    const rejected = await resolve(ben.event, { action: 'reject_commissions', reason: 'Bought through their own link' });
    expect(rejected.status, rejected.text).toBe(303);
    expect(await eventRow(ben.event.id)).toEqual({
      status: 'resolved',
      resolution: 'reject_commissions',
      resolution_reason: 'Bought through their own link',
    });
    expect(await commissionsOfPartner(ben.partner.id)).toEqual([{ status: 'rejected', rejection_reason: 'Bought through their own link' }]);

    // Ban: the partner suspended with the reason, their commissions rejected, every open event of theirs resolved.
    const banned = await resolve(cid.event, { action: 'ban_partner', reason: 'Self-referrals' });
    expect(banned.status, banned.text).toBe(303);
    expect(banned.headers.location).toContain('notice=risk-banned');
    expect(await partnerRow(cid.partner.id)).toEqual({ status: 'suspended', suspension_reason: 'Self-referrals' });
    expect(await commissionsOfPartner(cid.partner.id)).toEqual([{ status: 'rejected', rejection_reason: 'Self-referrals' }]);
    for (const id of [cid.event.id, cidDisposable.event.id]) {
      expect(await eventRow(id)).toEqual({ status: 'resolved', resolution: 'ban_partner', resolution_reason: 'Self-referrals' });
    }

    // Resolved already: 409, said at the top of the page, nothing changed.
    const again = await resolve(ann.event, { action: 'reject_commissions', reason: 'Too late' });
    expect(again.status).toBe(409);
    expect(textOf(again.text)).toContain('This risk event was already resolved, since this page was shown: nothing was changed.');
    expect(await eventRow(ann.event.id)).toEqual({ status: 'resolved', resolution: 'dismiss', resolution_reason: null });

    // The Resolved tab: each decision and its reason; nothing open is left, nor counted.
    const resolvedTab = await agent.get(riskPath(program, '?status=resolved'));
    const resolvedText = textOf(resolvedTab.text);
    for (const words of [
      'Dismissed',
      'Commissions rejected Reason: Bought through their own link',
      'Partner banned Reason: Self-referrals',
    ]) {
      expect(resolvedText).toContain(words);
    }
    expect(resolvedTab.text).not.toContain('class="nav-count"');
    expect(textOf((await agent.get(riskPath(program))).text)).toContain('No open risk events: nothing is held.');

    // Another organization's event, or this one under another organization's program: 404, nothing changed.
    const theirs = await dashboardAgent(t, other);
    const elsewhere = await theirs.agent
      .post(`/dashboard/programs/${other.program_id}/risk/${ann.event.id}/resolve`)
      .type('form')
      .send({ _csrf: theirs.csrf, action: 'dismiss' });
    expect(elsewhere.status).toBe(404);
  });

  it("badges a flagged partner on the partner list and their page, linking to the Risk page filtered to them, until it's resolved", async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const emma = await selfReferral(program, 'Emma');
    await disposable(org, emma.partner);
    const ben = await selfReferral(program, 'Ben');
    const calm = await createPartner(t, org, { program_id: program.id, first_name: 'Calm', last_name: 'Partner', status: 'active' });
    const filtered = riskPath(program, `?partner_id=${emma.partner.id}`);
    const badge = `<a class="badge badge-flagged" href="${filtered}">Flagged: 2<span class="visually-hidden"> open risk events</span></a>`;

    const list = await agent.get(`/dashboard/programs/${program.id}/partners`);
    expect(list.text).toContain(badge);
    expect(list.text).toContain(`href="${riskPath(program, `?partner_id=${ben.partner.id}`)}">Flagged: 1<`);
    expect(list.text.match(/badge-flagged/g)).toHaveLength(2);
    const own = await agent.get(`/dashboard/programs/${program.id}/partners/${emma.partner.id}`);
    expect(own.text).toContain(badge);
    expect((await agent.get(`/dashboard/programs/${program.id}/partners/${calm.id}`)).text).not.toContain('badge-flagged');

    // The badge's page: Emma's events alone, the partner's filter shown as a chip.
    const risk = await agent.get(filtered);
    expect(textOf(risk.text)).toContain('Partner: Emma Stone');
    expect(risk.text).not.toContain('Ben Stone');

    await agent
      .post(riskPath(program, `/${emma.event.id}/resolve`))
      .type('form')
      .send({ _csrf: csrf, action: 'dismiss' })
      .expect(303);
    expect((await agent.get(`/dashboard/programs/${program.id}/partners/${emma.partner.id}`)).text).toContain(
      `href="${filtered}">Flagged: 1<span class="visually-hidden"> open risk event</span>`,
    );

    // A page's counts read open events alone, from a partial index of them (sequential scans off:
    // the test tables are tiny, so the planner may take the program's open events as well as the
    // partner's; at scale the partner's index is the selective one).
    const plan = await db()
      .transaction()
      .execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        return countOpenRiskEventsOfPartners(trx, [emma.partner.id, ben.partner.id, calm.id]).explain('json');
      });
    expect(JSON.stringify(plan)).toMatch(/"Index Name":"risk_events_open_(partner|program)"/);
  });

  it('shows the money held on the payouts pages: on hold in the balances, and a generation leaving the partner out links to their events', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const emma = await selfReferral(program, 'Emma');
    await t.request
      .put(`/v1/partners/${emma.partner.id}`)
      .set(org.auth)
      .send({ payout_method: 'paypal', payout_details: { email: 'emma@paypal.example' } })
      .expect(200);
    const [commission] = (
      await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, partner_id: emma.partner.id })
    ).body.data;
    await t.request.put(`/v1/commissions/${commission.id}`).set(org.auth).send({ status: 'approved' }).expect(200);

    const balances = textOf((await agent.get(`/dashboard/programs/${program.id}/payouts/balances`)).text);
    // Minimum, currency, pending, payable, on hold, in payouts, paid.
    expect(balances).toContain('$0.00 USD $0.00 $0.00 $20.00 $0.00 $0.00');
    const generated = await agent.post(`/dashboard/programs/${program.id}/payouts/generate`).type('form').send({ _csrf: csrf });
    expect(generated.status).toBe(200);
    expect(textOf(generated.text)).toContain(
      'Emma Stone $20.00 $20.00 held by open risk events until you resolve them: review them on the Risk page',
    );
    expect(generated.text).toContain(`<a href="${riskPath(program, `?partner_id=${emma.partner.id}`)}">review them on the Risk page</a>`);
  });

  it('warns on an unpaid payout of the money a later event holds, in its list, its page and Mark paid, until it is canceled', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const paypal = (name: string) => ({
      payout_method: 'paypal',
      payout_details: { email: `${name}-${program.id.slice(-8).toLowerCase()}@paypal.example` },
    });
    const partner = (first_name: string) =>
      createPartner(t, org, {
        program_id: program.id,
        first_name,
        last_name: 'Stone',
        status: 'active',
        ...paypal(first_name.toLowerCase()),
      });
    const ada = await partner('Ada');
    const cy = await partner('Cy');
    const track = async (path: string, body: Record<string, unknown>, ua: string) => {
      const res = await t.request
        .post(path)
        .set('Content-Type', 'text/plain')
        .set('User-Agent', ua)
        .send(JSON.stringify({ key: program.public_key, ...body }));
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body.data;
    };
    const click = async (ua: string) => {
      const link = await createLink(t, org, ada);
      return (await track('/v1/track/click', { param: link.param, value: link.value }, ua)).click_id as string;
    };
    const signup = async (ua: string) =>
      (await track('/v1/track/signup', { click_id: await click(ua), identifier: uniqueEmail('cust') }, ua)).customer_id as string;
    // Two of Ada's customers, each from a browser of its own, and one of Cy's pay $100 each: a
    // $20.00 commission each, approved and paid out in one payout per partner.
    const fromFlood = await signup(CHROME_ON_LINUX);
    const fromElsewhere = await signup(SAFARI_ON_MAC);
    for (const id of [fromFlood, fromElsewhere]) await createTransaction(t, org, { id });
    await createTransaction(t, org, await createCustomer(t, org, cy));
    const commissions = (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id })).body.data as ApiObject[];
    expect(commissions).toHaveLength(3);
    for (const c of commissions) await t.request.put(`/v1/commissions/${c.id}`).set(org.auth).send({ status: 'approved' }).expect(200);
    const generated = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id }).expect(201);
    const payoutOf = (p: ApiObject) => (generated.body.data.payouts as ApiObject[]).find((x) => x.partner_id === p.id)!;
    expect([payoutOf(ada).amount, payoutOf(cy).amount]).toEqual([4000, 2000]);
    const payoutsPage = `/dashboard/programs/${program.id}/payouts`;
    const adaPage = `${payoutsPage}/${payoutOf(ada).id}`;
    expect((await agent.get(adaPage)).text).not.toContain('Under review');

    // 20 more clicks on Ada's links from the first customer's browser: the job finds the flood after
    // the payout was made, and holds the commissions of that browser's customers, one of Ada's two.
    for (let i = 0; i < 20; i++) await click(CHROME_ON_LINUX);
    expect(await checkClickFlooding(db())).toBeGreaterThanOrEqual(1);
    const page = await agent.get(adaPage);
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain('$40.00 to Ada Stone');
    expect(text).toContain(
      'Under review: $20.00 in 1 commission of this payout. An open risk event, raised after the payout was made, concerns it. ' +
        'To hold it back, cancel this payout before you decide on the event: rejecting it or banning the partner does not take back ' +
        'money in a payout, and resolves the event. Once canceled, what is under review stays on hold until you decide, and the rest ' +
        "of the payout is paid by the next generation. Review the partner's events on the Risk page",
    );
    expect(page.text).toContain(`<a href="${riskPath(program, `?partner_id=${ada.id}`)}">Review the partner's events on the Risk page</a>`);
    expect(page.text.indexOf('Under review')).toBeLessThan(page.text.indexOf('Mark paid'));
    // Mark paid says it too, and its button is described by the note.
    expect(page.text).toContain(
      'data-confirm="Mark $40.00 paid? $20.00 in 1 commission of it is under review. Its commissions become paid',
    );
    expect(page.text).toMatch(/<button type="submit" name="action" value="paid"[^>]* aria-describedby="under-review">/);
    // The list marks Ada's payout, not Cy's, and says that the pending payouts' batch file pays it.
    const list = await agent.get(payoutsPage);
    expect(list.text.match(/class="badge badge-flagged"/g)).toHaveLength(1);
    expect(list.text).toContain(`<a class="badge badge-flagged" href="${adaPage}">Under review: $20.00 in 1 commission</a>`);
    expect(textOf(list.text)).toContain(
      '1 of the pending payouts holds money under review (marked "Under review"): the batch file pays it whole. ' +
        'Open it and cancel it before you pay the file to hold that money back.',
    );

    // Processing: its file may be at PayPal already, so stopping it there comes first.
    const status = (action: string) =>
      agent.post(`${adaPage}/status`).type('form').send({ _csrf: csrf, action, reference: '', reason: '' });
    expect((await status('processing')).status).toBe(303);
    expect(textOf((await agent.get(adaPage)).text)).toContain(
      'cancel this payout before you decide on the event, once you have stopped its payment at PayPal, Wise or the bank (it is processing):',
    );
    // Now the processing payouts' file pays it, not the pending payouts' one.
    expect(textOf((await agent.get(payoutsPage)).text)).not.toContain('payouts holds money under review');
    expect(textOf((await agent.get(`${payoutsPage}?status=processing`)).text)).toContain(
      '1 of the processing payouts holds money under review',
    );

    expect((await status('canceled')).status).toBe(303);
    expect((await agent.get(adaPage)).text).not.toContain('Under review');
    expect((await agent.get(payoutsPage)).text).not.toContain('Under review');
    // The next generation pays the rest of Ada's money and leaves the held commission out (SQL).
    const again = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id }).expect(201);
    expect(again.body.data.payouts).toMatchObject([{ partner_id: ada.id, amount: 2000 }]);
    const inPayouts = await db()
      .selectFrom('payout_commissions as pc')
      .innerJoin('commissions as c', 'c.id', 'pc.commission_id')
      .select(['c.customer_id', 'pc.payout_id'])
      .where('c.partner_id', '=', ada.id)
      .execute();
    expect(inPayouts).toEqual([{ customer_id: fromElsewhere, payout_id: again.body.data.payouts[0].id }]);
  });

  it('saves the risk rules in Settings through the API, and refuses bad values beside their field with nothing saved', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const url = `/dashboard/programs/${program.id}/settings/risk-rules`;
    const rulesOf = async () => (await t.request.get(`/v1/programs/${program.id}/risk-rules`).set(org.auth)).body.data;

    const page = await agent.get(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('aria-current="page">Risk rules</a>');
    expect(page.text).toContain('<input type="checkbox" name="self_referral.enabled" checked ');
    expect(page.text).toContain('<input type="checkbox" name="paid_ad_traffic.enabled" aria-describedby');
    expect(page.text).toMatch(/name="click_flooding\.max_clicks_per_hour"[^>]*value="20"/);

    const form = {
      _csrf: csrf,
      'disposable_email.enabled': 'on',
      'shared_payout_account.enabled': 'on',
      'banned_referral_source.enabled': 'on',
      'click_flooding.enabled': 'on',
      'refund_rate.enabled': 'on',
      'click_flooding.max_clicks_per_hour': '50',
      'refund_rate.max_percent': '25.5',
      'refund_rate.min_payments': '10',
      'banned_referral_source.hosts': 'coupons.example\r\n\r\n Deals.Example \r\n',
    };
    const saved = await agent.post(url).type('form').send(form);
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.location).toBe(`${url}?notice=risk-rules-saved`);
    expect(await rulesOf()).toEqual({
      self_referral: { enabled: false },
      shared_payout_account: { enabled: true },
      disposable_email: { enabled: true },
      paid_ad_traffic: { enabled: false },
      banned_referral_source: { enabled: true, hosts: ['coupons.example', 'deals.example'] },
      click_flooding: { enabled: true, max_clicks_per_hour: 50 },
      refund_rate: { enabled: true, max_percent: 25.5, min_payments: 10 },
    });
    const shown = await agent.get(saved.headers.location);
    expect(textOf(shown.text)).toContain('Risk rules saved');
    expect(shown.text).toContain('coupons.example\ndeals.example</textarea>');
    // Self-referral is off now: a customer with the partner's e-mail is not flagged.
    const partner = await createPartner(t, org, { program_id: program.id, status: 'active' });
    await createCustomer(t, org, partner, { email: partner.email });
    expect((await t.request.get('/v1/risk-events').set(org.auth).query({ partner_id: partner.id })).body.data).toEqual([]);

    const before = await rulesOf();
    const zero = await agent
      .post(url)
      .type('form')
      .send({ ...form, 'click_flooding.max_clicks_per_hour': '0' });
    expect(zero.status).toBe(400);
    expect(messageBeside(zero.text, 'click_flooding-max_clicks_per_hour')).toBe('Must be at least 1.');
    expect(zero.text).toMatch(/name="click_flooding\.max_clicks_per_hour"[^>]*value="0"/);
    const scheme = await agent
      .post(url)
      .type('form')
      .send({ ...form, 'banned_referral_source.hosts': 'coupons.example\nhttps://deals.example/path' });
    expect(scheme.status).toBe(400);
    expect(messageBeside(scheme.text, 'banned_referral_source-hosts')).toBe(
      'Line 2 (“https://deals.example/path”): enter a host name such as coupons.example, without https:// or a path.',
    );
    expect(scheme.text).toContain('coupons.example\nhttps://deals.example/path</textarea>');
    expect(await rulesOf()).toEqual(before);
  });
});
