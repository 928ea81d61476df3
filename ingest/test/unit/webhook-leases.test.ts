import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { ClaimedDelivery } from '../../src/resources/webhook-endpoints/webhook-endpoints.repository.js';
import { createLeases, type Leases } from '../../src/resources/webhook-endpoints/webhook-leases.js';

/**
 * The leases a process holds on its webhook deliveries (webhook-leases.ts), with SQL's answers
 * to renewals stubbed and a fake clock: what is held, when it is renewed, and what a lane is
 * told when renewing fails.
 */

const { renewClaims } = vi.hoisted(() => ({ renewClaims: vi.fn<(...args: unknown[]) => Promise<string[]>>() }));
vi.mock('../../src/resources/webhook-endpoints/webhook-endpoints.repository.js', () => ({ renewClaims }));

const LEASE_MS = 20_000;
/** What a lane asks before an attempt: the attempt's 5 s and 2 s of slack. */
const NEED_MS = 7000;
const claim = (id: string): ClaimedDelivery => ({ id, endpoint_id: 'we_1', event_id: `evt_${id}`, attempt_count: 1, seq: 1 });

describe('webhook delivery leases', () => {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  let leases: Leases;

  beforeEach(() => {
    vi.useFakeTimers();
    renewClaims.mockReset();
    warnings.length = 0;
    leases = createLeases({} as Db, logger, LEASE_MS);
  });
  afterEach(async () => {
    await leases.close();
    vi.useRealTimers();
  });

  it('holds a claim while its lease has enough left, without asking SQL', async () => {
    const a = claim('wd_a');
    leases.take([a], Date.now() + LEASE_MS);
    expect(await leases.holds(a, NEED_MS)).toBe(true);
    expect(await leases.holds(claim('wd_never_taken'), NEED_MS)).toBe(false);
    expect(renewClaims).not.toHaveBeenCalled();
  });

  it('renews every claim it holds every quarter of the lease, under the lease end SQL last confirmed', async () => {
    renewClaims.mockImplementation(async (_db, claims) => (claims as { id: string }[]).map((c) => c.id));
    const [a, b] = [claim('wd_a'), claim('wd_b')];
    const first = Date.now() + LEASE_MS;
    leases.take([a, b], first);

    await vi.advanceTimersByTimeAsync(LEASE_MS / 4);
    expect(renewClaims).toHaveBeenCalledTimes(1);
    const [, claims, until] = renewClaims.mock.calls[0] as [Db, { id: string; heldUntil: Date }[], Date];
    expect(claims.map((c) => [c.id, c.heldUntil.getTime()])).toEqual([
      ['wd_a', first],
      ['wd_b', first],
    ]);
    expect(until.getTime()).toBe(Date.now() + LEASE_MS);

    // A lane that ran for longer than a lease still holds its claims.
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(await leases.holds(a, NEED_MS)).toBe(true);
    const last = renewClaims.mock.calls.at(-1) as [Db, { heldUntil: Date }[], Date];
    expect(last[1][0].heldUntil.getTime()).toBe((renewClaims.mock.calls.at(-2)![2] as Date).getTime());

    // A claim let go (recorded or given back) is renewed no more.
    leases.letGo([b]);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 4);
    expect((renewClaims.mock.calls.at(-1)![1] as { id: string }[]).map((c) => c.id)).toEqual(['wd_a']);
    expect(await leases.holds(b, NEED_MS)).toBe(false);
  });

  it('renews at once a lease that has run short, and answers by what SQL said', async () => {
    renewClaims.mockResolvedValueOnce(['wd_a']);
    const a = claim('wd_a');
    leases.take([a], Date.now() + NEED_MS - 1);
    expect(await leases.holds(a, NEED_MS)).toBe(true);
    expect(renewClaims).toHaveBeenCalledTimes(1);
  });

  it('a claim SQL did not renew (another process took it over, or its attempt was recorded) is not held', async () => {
    renewClaims.mockResolvedValue([]);
    const a = claim('wd_a');
    leases.take([a], Date.now() + LEASE_MS);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 4);
    expect(await leases.holds(a, NEED_MS)).toBe(false);
  });

  it('while renewals fail (SQL down), a lane is told no once the lease runs short, and nothing throws', async () => {
    renewClaims.mockRejectedValue(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    const a = claim('wd_a');
    leases.take([a], Date.now() + LEASE_MS);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 2);
    // Ten seconds left of the lease SQL confirmed: still enough for an attempt.
    expect(await leases.holds(a, NEED_MS)).toBe(true);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 4);
    // Five left: not enough, and renewing now fails too.
    expect(await leases.holds(a, NEED_MS)).toBe(false);
    expect(warnings.join('')).toContain('renewing webhook delivery leases failed');

    // SQL back: the lease is renewed, as long as it was still this process's.
    renewClaims.mockResolvedValueOnce(['wd_a']);
    expect(await leases.holds(a, NEED_MS)).toBe(true);
  });
});
