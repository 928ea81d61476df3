import { describe, expect, it } from 'vitest';
import { type ApiObject, createCustomer, createPartner, createProgram, createTransaction, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { portalAgent } from '../support/portal.js';

/**
 * Earnings under review in the portal (ingest/docs/partner-portal.md#earnings-under-review): money
 * that an open risk event holds, made here through the real path (a customer with the partner's
 * own e-mail is a self-referral, which holds that customer's commissions), shown on home and
 * referrals as an amount and a sentence, never with its rule or evidence; and what the partner
 * sees once the merchant dismisses the event, rejects its commissions or bans them.
 */

const UNDER_REVIEW = 'Some of your earnings are under review: <strong>$20.00</strong>. They are paid once the review is done.';

/** What the partner reads (tags and attributes left out), where no word of the rule may stand. */
const visibleText = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ');
const RULE_WORDS = /self|referral rule|risk|fraud|evidence|fingerprint|e-mail match|flag/i;

/** The HTML of a page's section, by the id of its heading. */
function section(html: string, titleId: string): string {
  const start = html.indexOf(`<section aria-labelledby="${titleId}"`);
  expect(start, `section ${titleId}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</section>', start));
}

describe('portal: earnings under review', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  /**
   * A partner signed in, with a $100 payment of a customer of their own e-mail (its $20 commission
   * held by the self-referral event) and, when asked, a $50 payment of another customer whose $10
   * commission is approved (not held).
   */
  async function heldPartner(withOther = false) {
    const program = await createProgram(t, org, { minimum_payout: 0 });
    const partner = await createPartner(t, org, {
      program_id: program.id,
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
    });
    const own = await createCustomer(t, org, partner, { email: partner.email });
    await createTransaction(t, org, own, { amount: 10_000 });
    if (withOther) {
      const other = await createTransaction(t, org, await createCustomer(t, org, partner, { email: uniqueEmail('buyer') }), {
        amount: 5_000,
      });
      const rewards = await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, transaction_id: other.id });
      const approved = await t.request.put(`/v1/commissions/${rewards.body.data[0].id}`).set(org.auth).send({ status: 'approved' });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    }
    const events = await t.request.get('/v1/risk-events').set(org.auth).query({ program_id: program.id, status: 'open' });
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    expect(events.body.data).toMatchObject([{ rule: 'self_referral', partner_id: partner.id, customer_id: own.id }]);
    const event: ApiObject = events.body.data[0];
    const balance = await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: partner.id });
    expect(balance.body.data[0].amounts).toMatchObject([{ currency: 'USD', on_hold: 2_000, pending: 0, payable: withOther ? 1_000 : 0 }]);
    return { program, partner, event, ...(await portalAgent(t, program, partner.email)) };
  }

  const resolve = async (event: ApiObject, body: Record<string, unknown>) => {
    const res = await t.request.post(`/v1/risk-events/${event.id}/resolve`).set(org.auth).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('shows the held amount on home and referrals, with the words for the next payout and nothing of the rule', async () => {
    const { program, event, agent, base, home } = await heldPartner();

    const earnings = section(home, 'earnings-title');
    expect(earnings).toContain(UNDER_REVIEW);
    expect(earnings).toContain('<th scope="col" class="num">Under review</th>');
    expect(earnings).toContain(
      '<th scope="row">USD</th><td class="num">$0.00</td><td class="num">$0.00</td><td class="num">$20.00</td><td class="num">$0.00</td><td class="num">$0.00</td>',
    );
    expect(earnings).toContain('Your earnings of $20.00 are under review: they will be paid after the review.');
    expect(earnings).not.toContain('Nothing to pay for now');

    const referrals = (await agent.get(`${base}/referrals`)).text;
    expect(section(referrals, 'next-payout-title')).toContain(
      'Your earnings of $20.00 are under review: they will be paid after the review.',
    );
    expect(section(referrals, 'next-payout-title')).toContain(
      '<dt>Under review</dt><dd><span class="value">$20.00</span><span class="delta">paid once the review is done</span>',
    );
    expect(section(referrals, 'commissions-title')).toContain(UNDER_REVIEW);

    // Nothing of why: no rule, evidence, event or its id, on either page (the program's own name aside).
    for (const page of [home, referrals]) {
      const text = visibleText(page).replaceAll(program.name, '');
      expect(text).not.toMatch(RULE_WORDS);
      expect(page).not.toContain(event.id);
      expect(page).not.toContain('self_referral');
    }

    // Dismissed, the money goes on as any other: no figure under review, no column, no sentence.
    await resolve(event, { action: 'dismiss' });
    const after = (await agent.get(`${base}/`)).text;
    expect(after).not.toContain('under review');
    expect(after).not.toContain('Under review');
    expect(section(after, 'earnings-title')).toContain('$20.00 is waiting for approval.');
    expect((await agent.get(`${base}/referrals`)).text).not.toMatch(/under review/i);
  });

  it('says what is under review beside what the next payout pays', async () => {
    const { agent, base, home } = await heldPartner(true);
    expect(section(home, 'earnings-title')).toContain(
      'You will be paid $10.00 in the next payout. $20.00 is under review: it is paid once the review is done.',
    );
    const referrals = (await agent.get(`${base}/referrals`)).text;
    expect(section(referrals, 'next-payout-title')).toContain('$20.00 is under review: it is paid once the review is done.');
  });

  it("shows the merchant's reason once the held commissions are rejected, and the suspension reason of a ban", async () => {
    const rejected = await heldPartner();
    await resolve(rejected.event, { action: 'reject_commissions', reason: 'Purchases of your own are not rewarded.' });
    const page = (await rejected.agent.get(`${rejected.base}/referrals`)).text;
    const commissions = section(page, 'commissions-title');
    expect(commissions).toContain('badge-rejected');
    expect(commissions).toContain(`Not approved by the ${rejected.program.name} team: Purchases of your own are not rewarded.`);
    expect(page).not.toMatch(/under review/i);

    const banned = await heldPartner();
    await resolve(banned.event, { action: 'ban_partner', reason: 'Your account broke the program terms.' });
    for (const path of ['/', '/referrals']) {
      const shown = (await banned.agent.get(`${banned.base}${path}`)).text;
      expect(shown).toContain('Your partnership is suspended');
      expect(shown).toContain('<strong>Their note:</strong> Your account broke the program terms.');
      expect(shown).not.toMatch(/under review/i);
    }
  });
});
