import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { countPartnersAwaitingReview } from '../../src/resources/partners/partners.repository.js';
import type { PartnerStatusChangeInput } from '../../src/resources/partners/partners.schema.js';
import {
  changePartnerStatuses,
  type PartnerStatusChangeResult,
  partnersAwaitingReview,
} from '../../src/resources/partners/partners.service.js';
import { type ApiObject, createPartner, createProgram, type TestOrg } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { warmPool } from '../support/harness.js';

/**
 * Bulk partner status changes and the count of partners awaiting review
 * (ingest/docs/dashboard.md#bulk-partner-status-changes), through the service the dashboard
 * calls, checked in SQL: the partners' rows, their events (migration 0009's outbox) and the
 * e-mail outbox.
 */
describe('partner status changes in bulk', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });

  const db = () => t.storage.db;
  const change = (programId: string, input: PartnerStatusChangeInput, organizationId = org.organization_id) =>
    changePartnerStatuses(db(), organizationId, programId, input);

  /** The refusal a change ends with (it must end with one). */
  async function refusal(work: Promise<unknown>): Promise<ApiError> {
    const err = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }

  /** Partners of a new program of the organization, each with the given status. */
  async function partnersOf(statuses: string[], owner: TestOrg = org): Promise<{ program: ApiObject; partners: ApiObject[] }> {
    const program = await createProgram(t, owner);
    const partners = await Promise.all(statuses.map((status) => createPartner(t, owner, { program_id: program.id, status })));
    return { program, partners };
  }

  /** The partners' rows in SQL, by id: status, notes, updated_at. */
  async function rows(ids: string[]) {
    const found = await db()
      .selectFrom('partners')
      .select(['id', 'status', 'rejection_note', 'suspension_reason', 'updated_at'])
      .where('id', 'in', ids)
      .execute();
    return Object.fromEntries(found.map((r) => [r.id, { ...r, updated_at: new Date(r.updated_at).toISOString() }]));
  }

  /** The partners' `partner.updated` events in the order they were written, with the status before and after. */
  async function statusEvents(ids: string[]) {
    const { rows: events } = await sql<{ object_id: string; was: string; now: string }>`
      select object_id, previous_snapshot ->> 'status' as was, snapshot ->> 'status' as now
        from events where type = 'partner.updated' and object_id in (${sql.join(ids)}) order by seq`.execute(db());
    return events;
  }

  const mailTo = async (emails: string[]) =>
    (
      await db()
        .selectFrom('email_outbox')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('to_address', 'in', emails)
        .executeTakeFirstOrThrow()
    ).n;

  it('approves pending partners in one change, with one event each, leaves one already active untouched, and e-mails nobody', async () => {
    const { program, partners } = await partnersOf(['pending', 'pending', 'active']);
    const ids = partners.map((p) => p.id);
    const before = await rows(ids);

    const result = await change(program.id, { ids, action: 'approve' });
    expect(result.changed.map((p) => p.id).sort()).toEqual(ids.slice(0, 2).sort());
    expect(result.unchanged.map((p) => p.id)).toEqual([ids[2]]);

    const after = await rows(ids);
    expect(ids.map((id) => after[id].status)).toEqual(['active', 'active', 'active']);
    // The one already active keeps its row as it was, and has no event.
    expect(after[ids[2]]).toEqual(before[ids[2]]);
    const events = await statusEvents(ids);
    expect(events.map((e) => [e.object_id, e.was, e.now]).sort()).toEqual(
      ids
        .slice(0, 2)
        .map((id) => [id, 'pending', 'active'])
        .sort(),
    );
    // A status change sends no e-mail, in bulk as by itself (ingest/docs/partner-emails.md).
    expect(await mailTo(partners.map((p) => p.email))).toBe(0);
    expect((await partnersAwaitingReview(db(), org.organization_id)).get(program.id)).toBeUndefined();
  });

  it('rejects with a note and suspends with a reason; an empty note clears it', async () => {
    const { program, partners } = await partnersOf(['pending', 'pending', 'active']);
    const [a, b, c] = partners.map((p) => p.id);
    await change(program.id, { ids: [a, b], action: 'reject', rejection_note: 'Not a fit for now' });
    await change(program.id, { ids: [c], action: 'suspend', suspension_reason: 'Brand bidding' });
    expect(await rows([a, b, c])).toMatchObject({
      [a]: { status: 'rejected', rejection_note: 'Not a fit for now' },
      [b]: { status: 'rejected', rejection_note: 'Not a fit for now' },
      [c]: { status: 'suspended', suspension_reason: 'Brand bidding' },
    });
    // The same status with another note is a change (of the note), still one event per partner.
    const renoted = await change(program.id, { ids: [a], action: 'reject', rejection_note: null });
    expect(renoted.changed.map((p) => [p.id, p.rejection_note])).toEqual([[a, null]]);
    const reactivated = await change(program.id, { ids: [a, b, c], action: 'reactivate' });
    expect(reactivated.changed).toHaveLength(3);
    expect(Object.values(await rows([a, b, c])).map((r) => r.status)).toEqual(['active', 'active', 'active']);
  });

  it('changes nothing when one partner named is not one of the program’s, and names each such partner', async () => {
    const { program, partners } = await partnersOf(['pending', 'pending', 'pending']);
    const [a, b, deleted] = partners.map((p) => p.id);
    expect((await t.request.delete(`/v1/partners/${deleted}`).set(org.auth)).status).toBe(200);
    const elsewhere = await createPartner(t, org, { status: 'pending' });
    const theirs = await createPartner(t, otherOrg, { status: 'pending' });
    const ids = [a, b, deleted, elsewhere.id, theirs.id, 'ptn_unknown'];
    const before = await rows(ids);
    const eventsBefore = await statusEvents(ids);

    const err = await refusal(change(program.id, { ids, action: 'approve' }));
    expect(err.status).toBe(404);
    expect(err.options.param).toBe('ids');
    for (const id of [deleted, elsewhere.id, theirs.id, 'ptn_unknown']) expect(err.message).toContain(id);
    for (const id of [a, b]) expect(err.message).not.toContain(id);
    expect(await rows(ids)).toEqual(before);
    expect(await statusEvents(ids)).toEqual(eventsBefore);

    // Another organization's program is not found, whoever's partners it names.
    const foreign = await refusal(change(otherOrg.program_id, { ids: [a], action: 'approve' }));
    expect([foreign.status, foreign.options.param]).toEqual([404, 'program_id']);
    expect((await rows([a]))[a].status).toBe('pending');
  });

  it('refuses bad input with a 400 naming the field, changing nothing', async () => {
    const { program, partners } = await partnersOf(['pending']);
    const id = partners[0].id;
    const cases: [unknown, string][] = [
      [{ ids: [], action: 'approve' }, 'ids'],
      [{ ids: Array.from({ length: 101 }, (_, i) => `ptn_${i}`), action: 'approve' }, 'ids'],
      [{ ids: [id], action: 'delete' }, 'action'],
      [{ ids: [id] }, 'action'],
      [{ ids: [id], action: 'approve', rejection_note: 'why' }, 'rejection_note'],
      [{ ids: [id], action: 'reject', suspension_reason: 'why' }, 'suspension_reason'],
      [{ ids: [id], action: 'reject', rejection_note: 'x'.repeat(2001) }, 'rejection_note'],
      [{ ids: [id], action: 'approve', status: 'active' }, 'status'],
    ];
    for (const [input, param] of cases) {
      const err = await refusal(change(program.id, input as PartnerStatusChangeInput));
      expect([err.status, err.options.param], JSON.stringify(input)).toEqual([400, param]);
    }
    expect((await rows([id]))[id].status).toBe('pending');
    expect(await statusEvents([id])).toEqual([]);
  });

  it('counts the partners awaiting review per program: pending, onboarded and live, from its partial index', async () => {
    const { program, partners } = await partnersOf(['pending', 'pending', 'pending', 'active', 'rejected']);
    const second = await partnersOf(['pending']);
    await createPartner(t, org, { program_id: program.id, status: 'pending', completed_onboarding: false });
    expect((await t.request.delete(`/v1/partners/${partners[2].id}`).set(org.auth)).status).toBe(200);
    await partnersOf(['pending', 'pending'], otherOrg);

    const counts = await partnersAwaitingReview(db(), org.organization_id);
    expect(counts.get(program.id)).toBe(2);
    expect(counts.get(second.program.id)).toBe(1);
    // The same number as the list of pending partners shows.
    const listed = await t.request.get('/v1/partners').set(org.auth).query({ program_id: program.id, status: 'pending' });
    expect(listed.body.data).toHaveLength(2);

    await change(program.id, { ids: [partners[0].id], action: 'approve' });
    expect((await partnersAwaitingReview(db(), org.organization_id)).get(program.id)).toBe(1);

    // The planner can answer from the partial index alone (sequential scans off: the test tables are tiny).
    const plan = await db()
      .transaction()
      .execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        return countPartnersAwaitingReview(trx, org.organization_id).explain('json');
      });
    expect(JSON.stringify(plan)).toContain('"Index Name":"partners_awaiting_review"');
  });

  it('leaves each partner one status event per real change when overlapping bulk changes run at once', async () => {
    await warmPool(t);
    const { program, partners } = await partnersOf(Array.from({ length: 20 }, () => 'pending'));
    const ids = partners.map((p) => p.id);
    const slice = (from: number, to: number) => ids.slice(from, to);
    const runs: PartnerStatusChangeInput[] = [
      { ids: slice(0, 15), action: 'approve' },
      { ids: slice(5, 20), action: 'reject' },
      { ids: [...slice(0, 20)].reverse(), action: 'suspend' },
      { ids: slice(10, 20), action: 'approve' },
      { ids: slice(0, 10), action: 'reactivate' },
      { ids: slice(0, 20), action: 'approve' },
      { ids: slice(3, 17), action: 'reject' },
      { ids: slice(0, 20), action: 'approve' },
    ];
    const results: PartnerStatusChangeResult[] = await Promise.all(runs.map((run) => change(program.id, run)));

    const events = await statusEvents(ids);
    const final = await rows(ids);
    for (const id of ids) {
      const mine = events.filter((e) => e.object_id === id);
      // One event for each run that changed the partner, and none for a run that found it as asked.
      expect(mine).toHaveLength(results.filter((r) => r.changed.some((p) => p.id === id)).length);
      // Each event is a real change that starts where the one before ended, and the last ends where the row is.
      let status = 'pending';
      for (const e of mine) {
        expect(e.was).toBe(status);
        expect(e.now).not.toBe(e.was);
        status = e.now;
      }
      expect(final[id].status).toBe(status);
    }
    // Every run either changed or found as asked each partner it named.
    for (const [i, r] of results.entries()) {
      expect([...r.changed, ...r.unchanged].map((p) => p.id).sort()).toEqual([...new Set(runs[i].ids)].sort());
    }
  });
});
