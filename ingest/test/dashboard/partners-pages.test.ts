import { describe, expect, it } from 'vitest';
import { dashboardAgent, textOf } from '../support/dashboard.js';
import { type ApiObject, createLink, createPartner, createProgram, type TestOrg, uniqueEmail, uniqueSuffix } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's partners pages on the page kit (ingest/docs/dashboard.md): the bulk status
 * form (all or nothing, checked in SQL), the count of partners awaiting review in the navigation,
 * the website prompt, the list's CSV link, and every form the service refuses shown again with
 * what was typed and the reason beside its field. The bulk change's own rules:
 * partner-status-changes.test.ts; the browser flow: e2e/dashboard-partners.spec.ts.
 */

/** The field's message beside it (`<span class="field-error" id="<id>-error">`) as text, or null. */
function messageBeside(html: string, id: string): string | null {
  const message = new RegExp(`<span class="field-error" id="${id}-error">([^<]*)</span>`).exec(html)?.[1];
  return message === undefined ? null : textOf(message);
}

/** The value an input of the page holds, by its id. */
const inputValue = (html: string, id: string) => new RegExp(`<input id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1] ?? null;

/** The ids the bulk form's checkboxes hold ticked. */
const ticked = (html: string) => [...html.matchAll(/<input type="checkbox" name="ids" value="([^"]+)"[^>]*checked/g)].map((m) => m[1]);

describe('dashboard: partners pages', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });

  const db = () => t.storage.db;
  /** The partners' statuses as SQL holds them, by id. */
  async function statuses(ids: string[]): Promise<Record<string, string>> {
    const rows = await db().selectFrom('partners').select(['id', 'status']).where('id', 'in', ids).execute();
    return Object.fromEntries(rows.map((r) => [r.id, r.status]));
  }
  const pending = (program: ApiObject, first_name: string, who: TestOrg = org) =>
    createPartner(t, who, { program_id: program.id, first_name, last_name: 'Pending', status: 'pending' });
  const partnersPath = (program: ApiObject, rest = '') => `/dashboard/programs/${program.id}/partners${rest}`;

  it('approves chosen partners in bulk, says how many changed, and the navigation counts fewer awaiting review', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const [ann, ben, cid] = [await pending(program, 'Ann'), await pending(program, 'Ben'), await pending(program, 'Cid')];
    const active = await createPartner(t, org, { program_id: program.id });

    const list = await agent.get(partnersPath(program)).query({ status: 'pending' });
    expect(list.status).toBe(200);
    expect(list.text).toContain(
      'Partners <span class="nav-count" aria-hidden="true">3</span><span class="visually-hidden">(3 partners awaiting review)</span>',
    );
    expect(list.text).toContain(`<input type="checkbox" name="ids" value="${ann.id}" form="bulk-partners" aria-label="Choose Ann Pending"`);
    // Rows name partners; their ids are in links and checkboxes only.
    expect(textOf(/<tbody>([\s\S]*)<\/tbody>/.exec(list.text)![1])).not.toMatch(/\bpart_/);

    const approved = await agent
      .post(partnersPath(program, '/bulk'))
      .type('form')
      .send({ _csrf: csrf, action: 'approve', ids: [ann.id, ben.id, active.id], back: '?status=pending', rejection_note: 'ignored' });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(`${partnersPath(program)}?status=pending&bulk=approve&changed=2&unchanged=1`);
    expect(await statuses([ann.id, ben.id, cid.id, active.id])).toEqual({
      [ann.id]: 'active',
      [ben.id]: 'active',
      [cid.id]: 'pending',
      [active.id]: 'active',
    });
    const after = await agent.get(approved.headers.location);
    expect(textOf(after.text)).toContain('2 partners approved. 1 was already active: left as it was.');
    expect(after.text).toContain('<span class="visually-hidden">(1 partner awaiting review)</span>');
    // Only the count's digits and a known action reach the page from its address.
    expect(textOf((await agent.get(partnersPath(program)).query({ bulk: 'approve', changed: 'many' })).text)).not.toContain(
      'partners approved',
    );

    // Rejected with a note to the partner; the last one gone, the navigation shows no count.
    const rejected = await agent
      .post(partnersPath(program, '/bulk'))
      .type('form')
      .send({ _csrf: csrf, action: 'reject', ids: cid.id, rejection_note: 'Not a fit', back: '?' });
    expect(rejected.headers.location).toBe(`${partnersPath(program)}?bulk=reject&changed=1`);
    const note = await db().selectFrom('partners').select(['status', 'rejection_note']).where('id', '=', cid.id).executeTakeFirstOrThrow();
    expect(note).toEqual({ status: 'rejected', rejection_note: 'Not a fit' });
    const none = await agent.get(rejected.headers.location);
    expect(textOf(none.text)).toContain('1 partner rejected.');
    expect(none.text).not.toContain('awaiting review');
  });

  it('changes nothing when a chosen partner is another program’s, and shows the list again with the message and what was chosen', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const mine = [await pending(program, 'Dee'), await pending(program, 'Eve')];
    const elsewhere = await pending(await createProgram(t, org), 'Fay');
    const theirs = await createPartner(t, other, { status: 'pending' });
    const ids = [...mine, elsewhere, theirs].map((p) => p.id);

    const refused = await agent
      .post(partnersPath(program, '/bulk'))
      .type('form')
      .send({ _csrf: csrf, action: 'suspend', ids, suspension_reason: 'Brand bidding', back: '?status=pending' });
    expect(refused.status).toBe(404);
    expect(refused.text).toContain(
      '<p class="error" role="alert">Nothing was changed: some of the chosen partners are not partners of this program',
    );
    expect(refused.text).not.toContain(elsewhere.id);
    expect(refused.text).not.toContain(theirs.id);
    // The list as it was filtered, the program's chosen partners still ticked, the reason as typed.
    expect(ticked(refused.text).sort()).toEqual(mine.map((p) => p.id).sort());
    expect(inputValue(refused.text, 'bulk-suspension-reason')).toBe('Brand bidding');
    expect(await statuses(ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 'pending'])));

    // Bad input is a 400 beside its field or above the list; nothing chosen is said in words.
    const tooLong = await agent
      .post(partnersPath(program, '/bulk'))
      .type('form')
      .send({ _csrf: csrf, action: 'reject', ids: mine[0].id, rejection_note: 'x'.repeat(2001), back: '?' });
    expect(tooLong.status).toBe(400);
    expect(messageBeside(tooLong.text, 'bulk-rejection-note')).toBe('Must be at most 2000 characters.');
    const nothing = await agent.post(partnersPath(program, '/bulk')).type('form').send({ _csrf: csrf, action: 'approve', back: '?' });
    expect(nothing.status).toBe(400);
    expect(nothing.text).toContain('<p class="error" role="alert">Choose at least one partner.</p>');
    expect(await statuses(mine.map((p) => p.id))).toEqual(Object.fromEntries(mine.map((p) => [p.id, 'pending'])));
  });

  it('counts only the program’s own partners awaiting review, and asks for the website address while the program has none', async () => {
    const { agent } = await dashboardAgent(t, org);
    const bare = await createProgram(t, org);
    const site = await createProgram(t, org, { website_url: 'https://acme.example/' });
    await pending(site, 'Gus');
    const prompt = `<a href="/dashboard/programs/${bare.id}/settings">Add your website address in Settings so partners get links they can share</a>`;
    for (const path of ['', '/partners', '/customers', '/commissions', '/payouts']) {
      const page = await agent.get(`/dashboard/programs/${bare.id}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain(prompt);
      expect(page.text, path).not.toContain('awaiting review');
    }
    // Not on Settings, whose form asks for it; not once the program has an address.
    expect((await agent.get(`/dashboard/programs/${bare.id}/settings`)).text).not.toContain('so partners get links they can share');
    const withSite = await agent.get(partnersPath(site));
    expect(withSite.text).not.toContain('so partners get links they can share');
    expect(withSite.text).toContain('<span class="visually-hidden">(1 partner awaiting review)</span>');
  });

  it('keeps what was typed when a new partner is refused, with the reason beside the field, and creates nobody', async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const email = uniqueEmail('taken');
    await createPartner(t, org, { program_id: program.id, email });
    const typed = { first_name: 'Hana', last_name: `Typed ${uniqueSuffix()}`, company_name: 'Hana & Co' };

    const taken = await agent
      .post(partnersPath(program))
      .type('form')
      .send({ _csrf: csrf, ...typed, email: email.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('<details class="add" open><summary class="button primary">Add a partner</summary>');
    expect(messageBeside(taken.text, 'new-email')).toBe('Another partner of this program has this e-mail address.');
    expect(inputValue(taken.text, 'first_name')).toBe('Hana');
    expect(inputValue(taken.text, 'last_name')).toBe(typed.last_name);
    expect(inputValue(taken.text, 'company_name')).toBe('Hana &amp; Co');
    expect(inputValue(taken.text, 'new-email')).toBe(email.toUpperCase());

    const badEmail = await agent
      .post(partnersPath(program))
      .type('form')
      .send({ _csrf: csrf, ...typed, email: 'not an address' });
    expect(badEmail.status).toBe(400);
    expect(messageBeside(badEmail.text, 'new-email')).toBe('Must be an e-mail address.');
    expect(inputValue(badEmail.text, 'new-email')).toBe('not an address');
    const named = await db().selectFrom('partners').select('id').where('last_name', '=', typed.last_name).execute();
    expect(named).toEqual([]);
  });

  it("keeps what was typed when a partner's details, status note or links are refused, each beside its field", async () => {
    const { agent, csrf } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id, first_name: 'Ivy', last_name: 'Edit' });
    const someone = await createPartner(t, org, { program_id: program.id });
    const theirLink = await createLink(t, org, someone);
    const ownLink = await createLink(t, org, partner);
    const base = partnersPath(program, `/${partner.id}`);

    const details = await agent
      .post(base)
      .type('form')
      .send({ _csrf: csrf, first_name: 'Ivy', last_name: 'Renamed', email: someone.email, company_name: '', internal_note: 'VIP' });
    expect(details.status).toBe(409);
    expect(messageBeside(details.text, 'edit-email')).toBe('Another partner of this program has this e-mail address.');
    expect(inputValue(details.text, 'edit-last')).toBe('Renamed');
    expect(details.text).toContain('<textarea id="edit-note" name="internal_note" rows="3" maxlength="2000">VIP</textarea>');

    const status = await agent
      .post(`${base}/status`)
      .type('form')
      .send({ _csrf: csrf, action: 'suspend', suspension_reason: 'y'.repeat(2001) });
    expect(status.status).toBe(400);
    expect(status.text).toMatch(/<details class="inline" open><summary class="button">Suspend…<\/summary>/);
    expect(messageBeside(status.text, 'suspension-reason')).toBe('Must be at most 2000 characters.');

    const newLink = await agent
      .post(`${base}/links`)
      .type('form')
      .send({ _csrf: csrf, param: 'ref', value: theirLink.value.toUpperCase() });
    expect(newLink.status).toBe(409);
    expect(messageBeside(newLink.text, 'link-value')).toBe('This value is taken for this parameter in the program: choose another.');
    expect(inputValue(newLink.text, 'link-value')).toBe(theirLink.value.toUpperCase());
    const badValue = await agent.post(`${base}/links`).type('form').send({ _csrf: csrf, param: 'ref', value: 'two words' });
    expect(badValue.status).toBe(400);
    expect(messageBeside(badValue.text, 'link-value')).toBe('Must be 1–64 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-".');

    const edited = await agent.post(`${base}/links/${ownLink.id}`).type('form').send({ _csrf: csrf, value: theirLink.value });
    expect(edited.status).toBe(409);
    expect(edited.text).toContain(`<details class="inline" open><summary class="button">Edit</summary>`);
    expect(messageBeside(edited.text, `value-${ownLink.id}`)).toBe(
      'This value is taken for this parameter in the program: choose another.',
    );
    expect(inputValue(edited.text, `value-${ownLink.id}`)).toBe(theirLink.value);

    // Nothing changed, and the partner's page shows its id once, to copy.
    const now = (await t.request.get(`/v1/partners/${partner.id}`).set(org.auth)).body.data;
    expect(now).toMatchObject({ last_name: 'Edit', status: 'active', internal_note: null, suspension_reason: null });
    expect((await t.request.get(`/v1/links/${ownLink.id}`).set(org.auth)).body.data[0].value).toBe(ownLink.value);
    const page = (await agent.get(base)).text;
    expect(page.split(`<code>${partner.id}</code>`)).toHaveLength(2);
    expect(page).toContain(`<button type="button" class="copy" data-copy="${partner.id}">Copy the id</button>`);
  });

  it("links the list's CSV download with its status and search as GET /v1/partners's parameters", async () => {
    const { agent } = await dashboardAgent(t, org);
    const program = await createProgram(t, org);
    const tag = uniqueSuffix();
    const kim = await createPartner(t, org, { program_id: program.id, first_name: 'Kim', last_name: tag, status: 'pending' });
    await createPartner(t, org, { program_id: program.id, first_name: 'Lou', last_name: tag });
    const csvOf = async (query: Record<string, string>) =>
      /<a class="button" href="([^"]+)" download>Download CSV<\/a>/
        .exec((await agent.get(partnersPath(program)).query(query)).text)?.[1]
        .replace(/&amp;/g, '&');
    const here = `/dashboard/programs/${program.id}/partners.csv`;
    expect(await csvOf({})).toBe(here);
    // The sort is the page's own; the cursor is not a filter: the file is the whole filtered list, newest first.
    expect(await csvOf({ status: 'pending', search: tag, sort: 'revenue' })).toBe(`${here}?status=pending&search=${tag}`);
    const file = await agent.get(`${here}?status=pending&search=${tag}`);
    expect(file.status).toBe(200);
    const lines = file.text.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1].startsWith(`${kim.id},`)).toBe(true);
    // A filter the list refuses is said beside its field (400), and the list is not shown.
    const refused = await agent.get(partnersPath(program)).query({ sort: 'height' });
    expect(refused.status).toBe(400);
    expect(messageBeside(refused.text, 'filter-sort')).toMatch(/^Must be one of newest, revenue/);
    expect(refused.text).not.toContain('<table');
  });
});
