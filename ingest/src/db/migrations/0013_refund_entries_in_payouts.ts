import { type Kysely, sql } from 'kysely';

/**
 * A refund entry goes into the pending payout its reward is in
 * (ingest/docs/payouts.md#refunds-and-payouts), so that paying the payout pays nothing refunded.
 * Before, a partial refund left the reward in its pending payout at full value and the entry
 * outside, for a later payout. This brings pending payouts made then up to the rule: each approved
 * entry in no payout whose reward sits in a pending payout of the entry's currency joins it, and
 * the payout's amount, count and period follow; a payout left with nothing, or nothing positive, to
 * pay is canceled, saying why, and lets go of its commissions (payable again, the partner's next
 * earnings absorb what they owe). The payout trigger (0010) records each change as `payout.updated`
 * or `payout.canceled`. Data only: down leaves it as it is. The SQL is this migration's own, a copy
 * of what joinRewardPayouts (payouts.repository.ts) did when it landed: a migration that landed
 * does not change with the service.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string; status: string }>`
    with joining as (
      insert into payout_commissions (commission_id, payout_id)
      select e.id, p.id
        from commissions e
        join payout_commissions pc on pc.commission_id = e.refund_of
        join payouts p on p.id = pc.payout_id
        join programs pr on pr.id = e.program_id
       where e.type = 'refund' and e.status = 'approved' and e.deleted_at is null
         and p.status = 'pending' and coalesce(e.currency, pr.currency_code) = p.currency
         and not exists (select 1 from payout_commissions x where x.commission_id = e.id)
      returning commission_id, payout_id
    ), joined as (
      select j.payout_id, sum(e.amount)::int8 as amount, count(*)::int as entries, max(e.created_at) as newest
        from joining j join commissions e on e.id = j.commission_id
       group by j.payout_id
    )
    update payouts p
       set amount = p.amount + j.amount, commission_count = p.commission_count + j.entries,
           period_end = greatest(p.period_end, j.newest), updated_at = now(),
           status = case when p.amount + j.amount <= 0 then 'canceled' else p.status end,
           reason = case when p.amount + j.amount <= 0
                         then 'Nothing left to pay: its commissions were refunded, rejected or deleted' else p.reason end
      from joined j
     where p.id = j.payout_id
    returning p.id, p.status`.execute(db);
  const canceled = rows.filter((r) => r.status === 'canceled').map((r) => r.id);
  if (canceled.length) await sql`delete from payout_commissions where payout_id = any(${canceled}::text[])`.execute(db);
}

/** The amounts were wrong before: nothing to undo. */
export async function down(): Promise<void> {}
