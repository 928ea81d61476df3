import { describe, expect, it } from 'vitest';
import { type ActivityLine, recentActivity } from '../../src/resources/events/activity.js';
import { changePartnerStatuses } from '../../src/resources/partners/partners.service.js';
import { dashboardAgent } from '../support/dashboard.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createLink,
  createPartner,
  createProgram,
  createTransaction,
  uniqueLinkValue,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The overview's recent activity (ingest/docs/dashboard.md#recent-activity): real changes made
 * through the API, read back as lines by the service, and shown on the overview page.
 */
describe('recent activity', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  const activityOf = (program: ApiObject, limit = 50) =>
    recentActivity(t.storage.db, { id: program.id, organization_id: org.organization_id, currency_code: program.currency_code }, limit);

  /** The lines as [type, text, path], sorted: events of one request may share a millisecond, so their order is not asserted. */
  const said = (lines: ActivityLine[]) => lines.map((l) => [l.type, l.text, l.path]).sort((a, b) => String(a).localeCompare(String(b)));

  const ok = (res: { status: number; body: unknown }, status = 200) => expect(res.status, JSON.stringify(res.body)).toBe(status);

  /** A program whose partner Emma Stone (pending, then approved) had a link, and whose customer paid $100.00 and was refunded $10.00 then $20.00. */
  async function emmasProgram() {
    const program = await createProgram(t, org);
    const emma = await createPartner(t, org, { program_id: program.id, first_name: 'Emma', last_name: 'Stone', status: 'pending' });
    await changePartnerStatuses(t.storage.db, org.organization_id, program.id, { ids: [emma.id], action: 'approve' });
    const value = uniqueLinkValue('emma');
    const link = await createLink(t, org, emma, { value });
    ok(await t.request.delete(`/v1/links/${link.id}`).set(org.auth));
    const ana = await createCustomer(t, org, emma, { email: `ana-${value}@x.com` });
    const payment = await createTransaction(t, org, ana, { amount: 10_000 });
    ok(await t.request.put(`/v1/transactions/${payment.id}/refund`).set(org.auth).send({ amount: 1000 }));
    ok(await t.request.put(`/v1/transactions/${payment.id}/refund`).set(org.auth).send({ amount: 2000 }));
    const [reward] = await commissionsOf(t, org, payment);
    ok(await t.request.put(`/v1/commissions/${reward.id}`).set(org.auth).send({ status: 'approved' }));
    return { program, emma, value, ana, payment };
  }

  let emmas: ReturnType<typeof emmasProgram> | undefined;
  /** Emma's program, made once for the tests that read it. */
  const emmasOnce = () => {
    emmas ??= emmasProgram();
    return emmas;
  };

  it('names the partner and customer of each change and says what it did, a partial refund with its amount and of what', async () => {
    const { program, emma, value, ana, payment } = await emmasOnce();
    const partnerPage = `/partners/${emma.id}`;
    const paymentPage = `/transactions/${payment.id}`;
    const customer = `ana-${value}@x.com`;

    expect(said(await activityOf(program))).toEqual(
      said(
        [
          ['partner.created', 'New partner Emma Stone, awaiting review', partnerPage],
          ['partner.updated', 'Partner Emma Stone is now active (was pending)', partnerPage],
          ['link.created', `Link ?ref=${value} created for Emma Stone`, partnerPage],
          ['link.deleted', `Link ?ref=${value} of Emma Stone deleted`, partnerPage],
          ['customer.created', `New lead ${customer}, referred by Emma Stone`, `/customers/${ana.id}`],
          ['transaction.created', `Payment of $100.00 from Emma Stone's customer ${customer}`, paymentPage],
          // Its first payment makes the lead a customer.
          ['customer.updated', `Emma Stone's customer ${customer} is now active (was lead)`, `/customers/${ana.id}`],
          ['commission.created', `Commission of $20.00 for Emma Stone (pending), customer ${customer}`, paymentPage],
          ['transaction.refunded', `Refund of $10.00 on Emma Stone's customer ${customer}'s $100.00 payment`, paymentPage],
          // The refund marks the reward's charge as partly refunded, and claws back a fifth of each refund.
          ['commission.updated', "Emma Stone's $20.00 commission changed: charge status", paymentPage],
          ['commission.created', `Commission refund entry of -$2.00 for Emma Stone (pending), customer ${customer}`, paymentPage],
          [
            'transaction.refunded',
            `Refund of $20.00 on Emma Stone's customer ${customer}'s $100.00 payment, $30.00 refunded in all`,
            paymentPage,
          ],
          ['commission.created', `Commission refund entry of -$4.00 for Emma Stone (pending), customer ${customer}`, paymentPage],
          ['commission.updated', "Emma Stone's $20.00 commission is now approved (was pending)", paymentPage],
        ].map(([type, text, path]) => ({ type, text, path }) as ActivityLine),
      ),
    );
    // Newest first, as many as asked.
    const latest = await activityOf(program, 2);
    expect(latest.map((l) => l.type)).toEqual(['commission.updated', 'commission.created']);
    expect(latest[0].at >= latest[1].at).toBe(true);
  });

  it('names a deleted partner and links nowhere for them; a customer by name, else e-mail, else identifier', async () => {
    const program = await createProgram(t, org);
    const bob = await createPartner(t, org, { program_id: program.id, first_name: 'Bob', last_name: 'Jones' });
    const value = uniqueLinkValue('bob');
    await createLink(t, org, bob, { value });
    const named = await createCustomer(t, org, bob, { name: 'Ana Lima' });
    const identified = await createCustomer(t, org, bob, { email: undefined, customer_id: `user_${value}` });
    ok(await t.request.delete(`/v1/partners/${bob.id}`).set(org.auth));

    expect(said(await activityOf(program))).toEqual(
      said(
        [
          ['partner.created', 'New partner Bob Jones', undefined],
          ['link.created', `Link ?ref=${value} created for Bob Jones`, undefined],
          ['customer.created', 'New lead Ana Lima, referred by Bob Jones', `/customers/${named.id}`],
          ['customer.created', `New lead user_${value}, referred by Bob Jones`, `/customers/${identified.id}`],
          ['partner.deleted', 'Partner Bob Jones deleted', undefined],
          ['link.deleted', `Link ?ref=${value} of Bob Jones deleted`, undefined],
        ].map(([type, text, path]) => ({ type, text, path }) as ActivityLine),
      ),
    );
  });

  it('shows the lines on the overview, each linking to its page', async () => {
    const { program, payment } = await emmasOnce();
    const { agent } = await dashboardAgent(t, org);
    const page = await agent.get(`/dashboard/programs/${program.id}`);
    expect(page.status).toBe(200);
    const items = [...page.text.matchAll(/<ul class="activity">(.*?)<\/ul>/gs)][0][1];
    // The overview shows the latest 8.
    expect(items.match(/<li>/g)).toHaveLength(8);
    expect(items).toContain(
      `<a href="/dashboard/programs/${program.id}/transactions/${payment.id}">Refund of $10.00 on Emma Stone's customer`,
    );
    expect(items).not.toMatch(/evt_|txn_[^"]*</);
  });
});
