import type supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/money.js';
import { dashboardAgent, textOf } from '../support/dashboard.js';
import {
  type ApiObject,
  createCustomer,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's Payouts pages (ingest/docs/payouts.md): balances as the API shows them,
 * generation and its report, the transitions the service allows, the batch files byte for byte as
 * the API sends them, another organization's ids and CSRF. The browser flow:
 * e2e/dashboard-payouts.spec.ts.
 */

/** The cells of the balance rows of a partner (one row per currency, each heading with a link to the partner), as text. */
function balanceRows(html: string, partnerId: string): string[][] {
  const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].filter((m) => m[1].includes(`/partners/${partnerId}"`));
  return rows.map((m) => [...m[1].matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => textOf(c[1])));
}

/** A response body as text, whatever its content type (the batch files are text/csv). */
const asText = (r: supertest.Test) =>
  r.buffer(true).parse((res, done) => {
    let text = '';
    res.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    res.on('end', () => done(null, text));
  });

describe('dashboard payouts', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });

  /** A program of the test's own (generations see only its commissions). */
  const programOf = (who: TestOrg = org, fields: Record<string, unknown> = {}) =>
    createProgram(t, who, { currency_code: 'USD', ...fields });
  const partnerIn = (program: ApiObject, fields: Record<string, unknown> = {}, who: TestOrg = org) =>
    createPartner(t, who, {
      program_id: program.id,
      group_id: program.default_group_id,
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
      ...fields,
    });
  async function commission(partner: ApiObject, amount: number, fields: Record<string, unknown> = {}, who: TestOrg = org) {
    const res = await t.request
      .post('/v1/commissions')
      .set(who.auth)
      .send({ program_id: partner.program_id, partner_id: partner.id, amount, status: 'approved', ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0];
  }
  async function apiGenerate(program: ApiObject, who: TestOrg = org) {
    const res = await t.request.post('/v1/payouts/generate').set(who.auth).send({ program_id: program.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { payouts: ApiObject[] };
  }
  const apiPayout = async (id: string, who: TestOrg = org) => (await t.request.get(`/v1/payouts/${id}`).set(who.auth)).body.data;
  const payoutsPath = (program: ApiObject, rest = '') => `/dashboard/programs/${program.id}/payouts${rest}`;

  it('shows each partner balance as GET /v1/programs/:id/balances does, with the minimum', async () => {
    const { agent } = await dashboardAgent(t, org);
    const program = await programOf(org, { minimum_payout: 2500 });
    const alice = await partnerIn(program);
    const bob = await partnerIn(program, { payout_method: 'none', payout_details: {} });
    const idle = await partnerIn(program);
    await commission(alice, 700, { status: 'pending' });
    await commission(alice, 3000);
    await commission(alice, 2000, { status: 'paid' });
    await commission(bob, 1234);
    // Alice's payable goes into a payout: in_payouts.
    await apiGenerate(program);
    await commission(alice, 450);

    const api = await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ limit: 100 });
    expect(api.status).toBe(200);
    const page = await agent.get(payoutsPath(program, '/balances'));
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain('Minimum payout: $25.00');
    for (const balance of api.body.data as ApiObject[]) {
      const rows = balanceRows(page.text, balance.partner_id);
      if (balance.amounts.length === 0) {
        expect(rows).toHaveLength(1);
        expect(rows[0][0]).toContain('No commissions yet');
        continue;
      }
      expect(rows.map((r) => r.slice(-7))).toEqual(
        balance.amounts.map((a: ApiObject) => [
          formatMoney(balance.minimum_payout, a.currency),
          a.currency,
          formatMoney(a.pending, a.currency),
          formatMoney(a.payable, a.currency),
          formatMoney(a.on_hold, a.currency),
          formatMoney(a.in_payouts, a.currency),
          formatMoney(a.paid, a.currency),
        ]),
      );
    }
    // What the API says, so that the comparison above compared something.
    const byId = new Map((api.body.data as ApiObject[]).map((b) => [b.partner_id, b]));
    expect(byId.get(alice.id)!.amounts).toEqual([
      { currency: 'USD', pending: 700, payable: 450, in_payouts: 3000, paid: 2000, on_hold: 0 },
    ]);
    expect(byId.get(idle.id)!.amounts).toEqual([]);
    expect(balanceRows(page.text, bob.id)[0]).toContain('none yet');
  });

  it('says what to do next when there is nothing yet', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await programOf();
    expect(textOf((await agent.get(payoutsPath(program))).text)).toContain('No payouts yet. Approve commissions');
    expect(textOf((await agent.get(payoutsPath(program, '/balances'))).text)).toContain('No partners yet.');
    await partnerIn(program);
    expect(textOf((await agent.get(payoutsPath(program, '/balances'))).text)).toContain('No commissions yet for these partners');
    const nothing = await agent.post(payoutsPath(program, '/generate')).type('form').send({ _csrf: csrf });
    expect(nothing.status).toBe(200);
    expect(textOf(nothing.text)).toContain('Nobody is owed anything: there are no approved commissions');
  });

  it('generates payouts, reports who was left out and why, and lists the payouts', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await programOf(org, { minimum_payout: 1000 });
    const alice = await partnerIn(program, { first_name: 'Alice', last_name: 'Able' });
    const small = await partnerIn(program, { first_name: 'Sam', last_name: 'Small' });
    const noMethod = await partnerIn(program, { first_name: 'Nora', last_name: 'None', payout_method: 'none', payout_details: {} });
    await commission(alice, 4000, { created_at: '2026-01-10T12:00:00.000Z' });
    await commission(alice, 1900);
    await commission(small, 500);
    await commission(noMethod, 5000);

    // Up to a day: only what was made by its end.
    const upTo = await agent.post(payoutsPath(program, '/generate')).type('form').send({ _csrf: csrf, up_to_day: '2026-01-31' });
    expect(upTo.status, upTo.text).toBe(200);
    const upToText = textOf(upTo.text);
    expect(upToText).toContain('Approved commissions made up to 2026-01-31 23:59 UTC');
    expect(upToText).toContain('1 payout made');
    expect(upToText).toMatch(/Alice Able \$40\.00 1 Next/);

    const res = await agent.post(payoutsPath(program, '/generate')).type('form').send({ _csrf: csrf });
    expect(res.status).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain('1 payout made');
    expect(text).toMatch(/Alice Able \$19\.00 1 Next/);
    // The payouts made are named, not shown by their ids.
    expect(text).not.toMatch(/\bpo_/);
    expect(text).toContain('2 left out');
    expect(text).toContain('Sam Small $5.00 Below the minimum payout of $10.00');
    expect(text).toContain('Nora None $50.00 No payout method yet');

    const api = (await t.request.get('/v1/payouts').set(org.auth).query({ program_id: program.id })).body.data as ApiObject[];
    expect(api.map((p) => p.amount).sort()).toEqual([1900, 4000]);
    const list = await agent.get(payoutsPath(program));
    expect(list.status).toBe(200);
    for (const p of api) {
      expect(list.text).toContain(`href="${payoutsPath(program, `/${p.id}`)}"`);
      expect(list.text).toContain(formatMoney(p.amount, 'USD'));
    }
    const filtered = await agent.get(payoutsPath(program, '?status=paid'));
    expect(textOf(filtered.text)).toContain('No paid payout matches this filter.');
    expect((await agent.get(payoutsPath(program, '?status=sent'))).status).toBe(400);
  });

  it('filters payouts by a partner found by name, links the CSV of that list, and names partners instead of showing ids', async () => {
    const { agent } = await dashboardAgent(t, org);
    const program = await programOf();
    const alice = await partnerIn(program, { first_name: 'Alice', last_name: 'Able' });
    const bob = await partnerIn(program, { first_name: 'Bob', last_name: 'Baker' });
    await commission(alice, 1500);
    await commission(bob, 2500);
    const [hers] = (await apiGenerate(program)).payouts.filter((p) => p.partner_id === alice.id);

    const found = await agent.get(payoutsPath(program)).query({ partner: 'able' });
    expect(found.status).toBe(303);
    expect(found.headers.location).toBe(`${payoutsPath(program)}?partner_id=${alice.id}`);
    const page = await agent.get(found.headers.location).query({ status: 'pending' });
    expect(page.status).toBe(200);
    const rows = textOf(/<tbody>([\s\S]*)<\/tbody>/.exec(page.text)![1]);
    expect(rows).toContain('Alice Able');
    expect(rows).toContain('$15.00');
    expect(rows).not.toContain('Bob Baker');
    expect(rows).not.toMatch(/\b(po|part)_/);
    expect(textOf(page.text)).toContain('Partner: Alice Able');

    // The CSV link carries the list's filters as GET /v1/payouts's, and the file is that list.
    const csv = /<a class="button" href="([^"]+)" download>Download CSV<\/a>/.exec(page.text)![1].replace(/&amp;/g, '&');
    expect(csv).toBe(`/dashboard/programs/${program.id}/payouts.csv?status=pending&partner_id=${alice.id}`);
    const file = await asText(agent.get(csv));
    expect(file.status).toBe(200);
    const lines = file.body.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1].startsWith(`${hers.id},`)).toBe(true);
  });

  it('keeps what was typed when a form is refused: a generation’s day and a transition’s reference, the reason beside the field', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await programOf();
    const alice = await partnerIn(program);
    await commission(alice, 1500);

    const wrongDay = await agent.post(payoutsPath(program, '/generate')).type('form').send({ _csrf: csrf, up_to_day: '2026-02-30' });
    expect(wrongDay.status).toBe(400);
    expect(wrongDay.text).toContain('<details class="add" open><summary class="button primary">Generate payouts</summary>');
    expect(wrongDay.text).toMatch(/<input id="filter-up_to_day" aria-invalid="true"[^>]*name="up_to_day"[^>]*value="2026-02-30"/);
    expect(wrongDay.text).toMatch(/<span class="field-error" id="filter-up_to_day-error">[^<]+<\/span>/);
    expect((await t.request.get('/v1/payouts').set(org.auth).query({ program_id: program.id })).body.total_count).toBe(0);

    const [payout] = (await apiGenerate(program)).payouts;
    const reference = `R${'x'.repeat(255)}`;
    const refused = await agent
      .post(payoutsPath(program, `/${payout.id}/status`))
      .type('form')
      .send({ _csrf: csrf, action: 'paid', reference });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<span class="field-error" id="paid-reference-error">Must be at most 255 characters.</span>');
    expect(refused.text).toContain(`value="${reference}"`);
    expect((await apiPayout(payout.id)).status).toBe('pending');
  });

  it('marks a payout paid with its reference: the API shows it and its commissions paid', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await programOf();
    const alice = await partnerIn(program);
    const commissions = [await commission(alice, 1500), await commission(alice, 2500)];
    const [payout] = (await apiGenerate(program)).payouts;
    const page = await agent.get(payoutsPath(program, `/${payout.id}`));
    expect(page.status).toBe(200);
    for (const label of ['Mark processing', 'Mark paid', 'Mark failed', 'Cancel payout']) expect(page.text).toContain(label);
    // The commissions in it, by their amounts (ids are not shown as text: ingest/docs/dashboard.md).
    for (const c of commissions) expect(textOf(page.text)).toContain(formatMoney(c.amount, program.currency_code));

    const processing = await agent
      .post(payoutsPath(program, `/${payout.id}/status`))
      .type('form')
      .send({ _csrf: csrf, action: 'processing', reference: '' });
    expect(processing.status).toBe(303);
    expect((await apiPayout(payout.id)).status).toBe('processing');
    const paid = await agent
      .post(payoutsPath(program, `/${payout.id}/status`))
      .type('form')
      .send({ _csrf: csrf, action: 'paid', reference: 'PAYPAL-BATCH-4711' });
    expect(paid.status).toBe(303);
    expect(paid.headers.location).toBe(payoutsPath(program, `/${payout.id}?notice=payout-paid`));

    expect(await apiPayout(payout.id)).toMatchObject({ status: 'paid', reference: 'PAYPAL-BATCH-4711', paid_at: expect.any(String) });
    const inIt = (await t.request.get(`/v1/payouts/${payout.id}/commissions`).set(org.auth)).body.data as ApiObject[];
    expect(inIt.map((c) => [c.id, c.status]).sort()).toEqual(commissions.map((c) => [c.id, 'paid']).sort());
    // The full field set (a write's answer) carries payout_id: this payout's.
    for (const c of commissions) {
      const full = (await t.request.put(`/v1/commissions/${c.id}`).set(org.auth).send({})).body.data[0];
      expect(full).toMatchObject({ status: 'paid', payout_id: payout.id });
    }

    const after = await agent.get(paid.headers.location);
    const afterText = textOf(after.text);
    expect(afterText).toContain('Payout marked paid: its commissions are paid.');
    expect(afterText).toContain('A paid payout is final');
    expect(after.text).not.toContain('Mark processing');
  });

  it('refuses a transition the service does not allow (400), and nothing changes', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await programOf();
    const alice = await partnerIn(program);
    await commission(alice, 1500);
    const [payout] = (await apiGenerate(program)).payouts;
    const url = payoutsPath(program, `/${payout.id}/status`);
    const canceled = await agent.post(url).type('form').send({ _csrf: csrf, action: 'canceled', reason: 'Wrong amount' });
    expect(canceled.status).toBe(303);
    const before = await apiPayout(payout.id);
    expect(before).toMatchObject({ status: 'canceled', reason: 'Wrong amount' });

    for (const action of ['paid', 'processing', 'failed']) {
      const refused = await agent.post(url).type('form').send({ _csrf: csrf, action, reference: 'X' });
      expect(refused.status, action).toBe(400);
      expect(textOf(refused.text)).toContain('A canceled payout cannot change');
    }
    // Not a transition at all, and a reason with a status that takes none.
    expect((await agent.post(url).type('form').send({ _csrf: csrf, action: 'pending' })).status).toBe(400);
    expect(await apiPayout(payout.id)).toEqual(before);
    // The commission is payable again, and a payout of it refuses a reason when marked paid.
    const [again] = (await apiGenerate(program)).payouts;
    const withReason = await agent
      .post(payoutsPath(program, `/${again.id}/status`))
      .type('form')
      .send({ _csrf: csrf, action: 'paid', reason: 'why not' });
    expect(withReason.status).toBe(400);
    expect((await apiPayout(again.id)).status).toBe('pending');
  });

  it('exports the same bytes as GET /v1/payouts/export, with its file name and content type', async () => {
    const { agent } = await dashboardAgent(t, org);
    const program = await programOf(org, { currency_code: 'EUR' });
    const alice = await partnerIn(program, { first_name: '=HYPERLINK("x")', last_name: 'Formula' });
    const wise = await partnerIn(program, { payout_method: 'wise', payout_details: { email: uniqueEmail('wise') } });
    await commission(alice, 1000);
    await commission(wise, 2000);
    const customer = await createCustomer(t, org, alice);
    const txn = await createTransaction(t, org, customer, { amount: 10_000, currency: 'USD' });
    const rewards = (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, transaction_id: txn.id })).body
      .data as ApiObject[];
    for (const r of rewards) await t.request.put(`/v1/commissions/${r.id}`).set(org.auth).send({ status: 'approved' });
    expect((await apiGenerate(program)).payouts).toHaveLength(3);

    const queries = [
      { format: 'csv' },
      { format: 'wise' },
      { format: 'paypal', currency: 'EUR' },
      { format: 'paypal', currency: 'usd' },
      { format: 'csv', status: 'paid' },
      { format: 'paypal' },
      { format: 'pdf' },
    ];
    const refusals: string[] = [];
    for (const query of queries) {
      const api = await asText(
        t.request
          .get('/v1/payouts/export')
          .set(org.auth)
          .query({ program_id: program.id, ...query }),
      );
      const dash = await asText(agent.get(payoutsPath(program, '/export')).query(query));
      expect(dash.status, JSON.stringify(query)).toBe(api.status);
      if (api.status !== 200) {
        // The same refusal, in plain words beside its field, on the payouts page with the export form open again as it was sent.
        expect(dash.body).toContain('<details class="add" open><summary class="button">Export a batch file</summary>');
        refusals.push(textOf(/<span class="field-error"[^>]*>([^<]+)<\/span>/.exec(dash.body)?.[1] ?? ''));
        continue;
      }
      expect(dash.body, JSON.stringify(query)).toBe(api.body);
      expect(dash.headers['content-type']).toBe(api.headers['content-type']);
      expect(dash.headers['content-disposition']).toBe(api.headers['content-disposition']);
    }
    expect(refusals).toEqual([
      'A paypal file holds one currency; these payouts are in EUR, USD: choose one with currency.',
      'Must be one of paypal, wise, csv.',
    ]);
    // A payout whose details lost the e-mail (made before generation required it): named by words, not by its id.
    const [wisePayout] = (await t.request.get('/v1/payouts').set(org.auth).query({ program_id: program.id, partner_id: wise.id })).body
      .data;
    await t.storage.db.updateTable('payouts').set({ payout_details: '{}' }).where('id', '=', wisePayout.id).execute();
    const noEmail = await asText(agent.get(payoutsPath(program, '/export')).query({ format: 'wise' }));
    expect(noEmail.status).toBe(400);
    expect(textOf(/<span class="field-error" id="export-format-error">([^<]+)<\/span>/.exec(noEmail.body)![1])).toBe(
      "Payouts without the partner's wise e-mail in their payout details cannot be in the file.",
    );
    const csv = await asText(agent.get(payoutsPath(program, '/export')).query({ format: 'csv' }));
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="?payouts-.+-pending-\d{4}-\d{2}-\d{2}-csv\.csv"?$/);
    expect(csv.body).toContain(`"'=HYPERLINK(""x"") Formula"`);
    expect(csv.body.trim().split('\r\n')).toHaveLength(4);
  });

  it("answers 404 for another organization's payout, and for another program's in the URL", async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const mine = await programOf();
    const theirs = await programOf(other);
    const theirPartner = await partnerIn(theirs, {}, other);
    await commission(theirPartner, 3000, {}, other);
    const [theirPayout] = (await apiGenerate(theirs, other)).payouts;
    const otherProgram = await programOf();
    const alice = await partnerIn(otherProgram);
    await commission(alice, 3000);
    const [otherProgramPayout] = (await apiGenerate(otherProgram)).payouts;

    for (const id of [theirPayout.id, otherProgramPayout.id, 'po_doesnotexist000000000']) {
      expect((await agent.get(payoutsPath(mine, `/${id}`))).status, id).toBe(404);
      const post = await agent
        .post(payoutsPath(mine, `/${id}/status`))
        .type('form')
        .send({ _csrf: csrf, action: 'paid' });
      expect(post.status, id).toBe(404);
    }
    expect((await agent.get(payoutsPath(theirs))).status).toBe(404);
    expect((await agent.get(payoutsPath(theirs, '/balances'))).status).toBe(404);
    expect((await agent.get(payoutsPath(theirs, '/export?format=csv'))).status).toBe(404);
    expect((await agent.post(payoutsPath(theirs, '/generate')).type('form').send({ _csrf: csrf })).status).toBe(404);
    expect((await apiPayout(theirPayout.id, other)).status).toBe('pending');
    expect((await apiPayout(otherProgramPayout.id)).status).toBe('pending');
    // Its own program's page of it opens.
    expect((await agent.get(payoutsPath(otherProgram, `/${otherProgramPayout.id}`))).status).toBe(200);
  });

  it('requires the CSRF token to generate or change a payout', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await programOf();
    const alice = await partnerIn(program);
    await commission(alice, 1500);
    const generate = await agent.post(payoutsPath(program, '/generate')).type('form').send({});
    expect(generate.status).toBe(403);
    const forged = await agent
      .post(payoutsPath(program, '/generate'))
      .type('form')
      .send({ _csrf: `${csrf.slice(1)}x` });
    expect(forged.status).toBe(403);
    expect((await t.request.get('/v1/payouts').set(org.auth).query({ program_id: program.id })).body.total_count).toBe(0);

    const [payout] = (await apiGenerate(program)).payouts;
    const paid = await agent
      .post(payoutsPath(program, `/${payout.id}/status`))
      .type('form')
      .send({ action: 'paid' });
    expect(paid.status).toBe(403);
    expect((await apiPayout(payout.id)).status).toBe('pending');
  });
});
