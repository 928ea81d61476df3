import { describe, expect, it } from 'vitest';
import { dashboardAgent } from '../support/dashboard.js';
import { createCustomer, createPartner, createProgram, createTransaction, type TestOrg, uniqueSuffix } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';

/**
 * The filters of the dashboard's lists (dashboard/list-filters.ts, pages/filters.tsx;
 * ingest/docs/dashboard.md#list-filters): the partner and customer pickers found by
 * name or e-mail without JavaScript, another organization's or program's ids as a 404, days as ISO
 * text refused beside their field, and each list's CSV link carrying its filters as the API's
 * list parameters. The browser flow is in e2e/dashboard-lists.spec.ts.
 */

const html = (s: string) => s.replace(/&/g, '&amp;');
/** The href of the page's "Download CSV" link, decoded, or null when the page has none. */
function csvLink(page: string): string | null {
  const href = /<a class="button" href="([^"]+)" download>Download CSV<\/a>/.exec(page)?.[1];
  return href ? href.replace(/&amp;/g, '&') : null;
}
const choiceLinks = (page: string) =>
  [...page.matchAll(/<li><a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[2], m[1].replace(/&amp;/g, '&')]);

/** A program with Emma Stone, Emma Watson and Bob Baker, each with one paying customer. */
async function threePartners(t: TestApp, org: TestOrg) {
  const program = await createProgram(t, org);
  const suffix = uniqueSuffix();
  const partner = (first_name: string, last_name: string) =>
    createPartner(t, org, {
      program_id: program.id,
      first_name,
      last_name,
      email: `${first_name}.${last_name}-${suffix}@example.com`.toLowerCase(),
    });
  const [stone, watson, bob] = [await partner('Emma', 'Stone'), await partner('Emma', 'Watson'), await partner('Bob', 'Baker')];
  const customers = [];
  for (const [p, name, mailbox] of [
    [stone, 'Zoë Quinn', 'zq'],
    [watson, 'Yann Tiersen', 'yann'],
    [bob, 'Xavier Ray', 'xavier'],
  ] as const) {
    const customer = await createCustomer(t, org, p, { email: `${mailbox}-${suffix}@shop.example`, name });
    await createTransaction(t, org, customer, { amount: 5000, created_at: '2026-02-10T12:00:00Z' });
    customers.push(customer);
  }
  return { program, stone, watson, bob, customers, suffix };
}

describe('dashboard: list filters', () => {
  const { t, orgs } = useTestApp({ orgs: 2 });

  it('finds a partner by name or e-mail: one match filters by it, several are offered, none is said beside the field', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const { program, stone, watson, bob } = await threePartners(t, org);
    const base = `/dashboard/programs/${program.id}/commissions`;

    // One match by name: the page moves to the partner's id, which the chip, the list and the CSV link then use.
    const byName = await agent.get(base).query({ partner: 'stone', status: 'pending' });
    expect(byName.status).toBe(303);
    expect(byName.headers.location).toBe(`${base}?status=pending&partner_id=${stone.id}`);
    const chosen = await agent.get(byName.headers.location);
    expect(chosen.status).toBe(200);
    expect(chosen.text).toContain('<span class="chip chosen">Partner: Emma Stone<a href=');
    expect(chosen.text).toContain(`<a href="${html(`${base}?status=pending`)}" aria-label="Remove the filter Partner: Emma Stone">×</a>`);
    expect(chosen.text).toContain(`<input type="hidden" name="partner_id" value="${stone.id}"/>`);
    expect(chosen.text).toContain('1 in all');
    expect(chosen.text).not.toContain('Watson');
    expect(csvLink(chosen.text)).toBe(`/dashboard/programs/${program.id}/commissions.csv?status=pending&partner_id=${stone.id}`);

    // One match by e-mail, in any case.
    const byEmail = await agent.get(base).query({ partner: bob.email.toUpperCase() });
    expect(byEmail.headers.location).toBe(`${base}?partner_id=${bob.id}`);

    // Several: links that set the filter, the other filters kept; no list and no CSV link until one is chosen.
    const several = await agent.get(base).query({ partner: 'emma', status: 'pending' });
    expect(several.status).toBe(200);
    expect(several.text).toContain('Which partner? These 2 match “emma”');
    expect(choiceLinks(several.text).sort()).toEqual([
      ['Emma Stone', `${base}?status=pending&partner_id=${stone.id}`],
      ['Emma Watson', `${base}?status=pending&partner_id=${watson.id}`],
    ]);
    expect(several.text).toContain('name="partner" type="search" value="emma"');
    expect(several.text).not.toContain('<table');
    expect(csvLink(several.text)).toBeNull();

    // None: said beside the field, what was typed kept.
    const none = await agent.get(base).query({ partner: 'nobody at all' });
    expect(none.status).toBe(200);
    expect(none.text).toContain('value="nobody at all"');
    expect(none.text).toContain('aria-invalid="true" aria-describedby="pick-partner-hint pick-partner-error"');
    expect(none.text).toContain(
      '<span class="field-error" id="pick-partner-error">No partner of this program matches “nobody at all”.</span>',
    );
  });

  it("keeps another program's or organization's partners and customers out: not offered, and their ids are a 404", async () => {
    const [org, other] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const { program, stone, customers } = await threePartners(t, org);
    const elsewhere = await threePartners(t, org);
    const theirs = await threePartners(t, other);
    const here = `/dashboard/programs/${program.id}`;

    // The same names in the other program are not offered here.
    const found = await agent.get(`${here}/commissions`).query({ partner: 'Emma Stone' });
    expect(found.headers.location).toBe(`${here}/commissions?partner_id=${stone.id}`);
    const customer = await agent.get(`${here}/transactions`).query({ customer: 'zoë' });
    expect(customer.headers.location).toBe(`${here}/transactions?customer_id=${customers[0].id}`);

    for (const list of ['commissions', 'transactions', 'customers']) {
      for (const partner of [elsewhere.stone, theirs.stone]) {
        expect((await agent.get(`${here}/${list}`).query({ partner_id: partner.id })).status, list).toBe(404);
      }
    }
    for (const list of ['commissions', 'transactions']) {
      for (const c of [elsewhere.customers[0], theirs.customers[0]]) {
        expect((await agent.get(`${here}/${list}`).query({ customer_id: c.id })).status, list).toBe(404);
      }
    }
    // So is an id of nothing.
    expect((await agent.get(`${here}/commissions`).query({ partner_id: 'part_nothing' })).status).toBe(404);
  });

  it('finds a customer by name or e-mail for the transactions list, with the partner picker beside it', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const { program, watson, customers, suffix } = await threePartners(t, org);
    const base = `/dashboard/programs/${program.id}/transactions`;

    const byName = await agent.get(base).query({ customer: 'Yann' });
    expect(byName.headers.location).toBe(`${base}?customer_id=${customers[1].id}`);
    const byEmail = await agent.get(base).query({ customer: `xavier-${suffix}@SHOP` });
    expect(byEmail.headers.location).toBe(`${base}?customer_id=${customers[2].id}`);

    const page = await agent.get(byName.headers.location);
    expect(page.text).toContain(`<span class="chip chosen">Customer: ${customers[1].email}<a href=`);
    expect(page.text).toContain('1 in all');

    // Both pickers at once: the one that found its record moves to its id, the other keeps its text and offers choices.
    const both = await agent.get(base).query({ partner: 'watson', customer: `-${suffix}@shop` });
    expect(both.headers.location).toBe(`${base}?partner_id=${watson.id}&customer=${encodeURIComponent(`-${suffix}@shop`)}`);
    const choosing = await agent.get(both.headers.location);
    expect(choosing.text).toContain('Which customer? These 3 match');
    expect(choosing.text).toContain('<span class="chip chosen">Partner: Emma Watson<a href=');
  });

  it('reads days as YYYY-MM-DD text and refuses a wrong one beside its field, keeping what was typed', async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const { program } = await threePartners(t, org);
    const base = `/dashboard/programs/${program.id}/commissions`;

    const page = await agent.get(base);
    expect(page.text).toMatch(
      /<label for="filter-from">From <span class="format">\(YYYY-MM-DD\)<\/span><\/label><input id="filter-from" name="from" type="text" value placeholder="YYYY-MM-DD" maxlength="10" inputmode="numeric" autocomplete="off" pattern="\\d\{4\}-\\d\{2\}-\\d\{2\}"\/>/,
    );
    expect(page.text).not.toContain('type="date"');

    const inFebruary = await agent.get(base).query({ from: '2026-02-01', to: '2026-02-28' });
    expect(inFebruary.text).toContain('3 in all');
    const inMarch = await agent.get(base).query({ from: '2026-03-01' });
    expect(inMarch.text).toContain('No commission matches these filters.');

    const wrong = await agent.get(base).query({ from: '02/01/2026', status: 'pending' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('value="02/01/2026"');
    expect(wrong.text).toContain('<span class="field-error" id="filter-from-error">Must be a date as YYYY-MM-DD.</span>');
    expect(wrong.text).toContain('<option value="pending" selected>');
    expect(wrong.text).not.toContain('<table');

    const backwards = await agent.get(base).query({ from: '2026-03-01', to: '2026-02-01' });
    expect(backwards.status).toBe(400);
    expect(backwards.text).toContain('<span class="field-error" id="filter-to-error">Must be on or after the From day.</span>');
  });

  it("links each list's CSV download with its filters as the API's list parameters", async () => {
    const [org] = orgs;
    const { agent } = await dashboardAgent(t, org);
    const { program, stone, customers } = await threePartners(t, org);
    const here = `/dashboard/programs/${program.id}`;
    const csvOf = async (path: string, query: Record<string, string>) => csvLink((await agent.get(`${here}/${path}`).query(query)).text);

    expect(await csvOf('commissions', {})).toBe(`${here}/commissions.csv`);
    expect(
      await csvOf('commissions', {
        status: 'pending',
        partner_id: stone.id,
        customer_id: customers[0].id,
        from: '2026-02-01',
        to: '2026-02-28',
      }),
    ).toBe(
      `${here}/commissions.csv?status=pending&partner_id=${stone.id}&customer_id=${customers[0].id}` +
        '&created_gte=2026-02-01T00%3A00%3A00.000Z&created_lte=2026-02-28T23%3A59%3A59.999Z',
    );
    expect(await csvOf('transactions', { partner_id: stone.id, charge_id: 'ch_1', from: '2026-02-10' })).toBe(
      `${here}/transactions.csv?partner_id=${stone.id}&charge_id=ch_1&created_gte=2026-02-10T00%3A00%3A00.000Z`,
    );
    expect(await csvOf('customers', { search: 'shop', status: 'active', partner_id: stone.id })).toBe(
      `${here}/customers.csv?search=shop&status=active&partner_id=${stone.id}`,
    );
    // The link downloads that list: the filtered rows alone.
    const file = await agent.get(`${here}/commissions.csv`).query({ partner_id: stone.id, created_gte: '2026-02-01T00:00:00.000Z' });
    expect(file.status).toBe(200);
    const lines = file.text.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    const hers = await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, partner_id: stone.id });
    expect(lines[1].startsWith(`${hers.body.data[0].id},`)).toBe(true);

    // The page's cursor is not a filter: the file is the whole filtered list.
    const txn = /\/transactions\/(txn_[A-Za-z0-9]+)"/.exec(
      (await agent.get(`${here}/transactions`).query({ partner_id: stone.id })).text,
    )![1];
    expect(await csvOf('transactions', { starting_after: txn, partner_id: stone.id })).toBe(
      `${here}/transactions.csv?partner_id=${stone.id}`,
    );
  });
});
