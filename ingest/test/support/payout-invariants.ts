import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';

/**
 * What must hold of a program's payouts whatever ran at once (ingest/docs/payouts.md), checked in
 * SQL rather than through the API:
 *
 * - a payout's amount and count are the sum and number of its rows: the commissions in it while
 *   it is pending or processing, those it paid once paid;
 * - a pending payout pays nothing refunded: its amount is its rewards net of their approved
 *   refund entries, wherever these are, plus the entries in it of rewards it does not hold
 *   (refunds after an earlier payout, taken back); a paid entry is money already taken back;
 * - no approved refund entry is left out of the pending payout its reward is in.
 *
 * Answers the payouts checked, by status.
 */
export async function expectPayoutsTrue(db: Db, programId: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ id: string; status: string; amount: number; commission_count: number; rows_sum: number; rows: number }>`
    select p.id, p.status, p.amount::int as amount, p.commission_count,
           coalesce(r.rows_sum, 0)::int as rows_sum, coalesce(r.rows, 0)::int as rows
      from payouts p
      left join lateral (
        select sum(c.amount) as rows_sum, count(*) as rows
          from commissions c
         where (p.status <> 'paid' and c.id in (select pc.commission_id from payout_commissions pc where pc.payout_id = p.id))
            or (p.status = 'paid' and c.payout_id = p.id)
      ) r on true
     where p.program_id = ${programId} and p.status in ('pending', 'processing', 'paid')`.execute(db);
  for (const p of rows) {
    expect({ id: p.id, amount: p.rows_sum, commission_count: p.rows }, `payout ${p.status}`).toEqual({
      id: p.id,
      amount: p.amount,
      commission_count: p.commission_count,
    });
  }

  const { rows: net } = await sql<{ id: string; amount: number; net: number }>`
    select p.id, p.amount::int as amount,
           (coalesce((select sum(c.amount) from payout_commissions pc join commissions c on c.id = pc.commission_id
                       where pc.payout_id = p.id
                         and (c.type = 'reward'
                              or not exists (select 1 from payout_commissions rpc where rpc.commission_id = c.refund_of and rpc.payout_id = p.id))), 0)
            + coalesce((select sum(e.amount) from payout_commissions pc join commissions e on e.refund_of = pc.commission_id
                         where pc.payout_id = p.id and e.deleted_at is null and e.status = 'approved'), 0))::int as net
      from payouts p
     where p.program_id = ${programId} and p.status = 'pending'`.execute(db);
  for (const p of net) expect({ id: p.id, amount: p.net }, 'pending payout net of refunds').toEqual({ id: p.id, amount: p.amount });

  const { rows: leftOut } = await sql<{ id: string }>`
    select e.id from commissions e
      join payout_commissions rpc on rpc.commission_id = e.refund_of
      join payouts p on p.id = rpc.payout_id and p.status = 'pending'
     where e.program_id = ${programId} and e.type = 'refund' and e.status = 'approved' and e.deleted_at is null
       and not exists (select 1 from payout_commissions pc where pc.commission_id = e.id)`.execute(db);
  expect(leftOut, 'approved refund entries outside their reward’s pending payout').toEqual([]);

  const byStatus: Record<string, number> = {};
  for (const p of rows) byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
  return byStatus;
}
