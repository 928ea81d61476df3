import pg from 'pg';
import type { ApiClient } from '../client/api-client.js';

export interface ListScale {
  clicks: number;
  customers: number;
  transactions: number;
}

const PARTNERS = 20;
const BATCH = 200_000;

/**
 * Fills one program for the list figures with plain SQL (the API would take hours for a million
 * clicks): partners through the API, then customers (a third of them leads), transactions with
 * one commission each, and clicks, spread over the partners and over the last months. The
 * stats triggers run as for any insert.
 */
export async function seedLists(databaseUrl: string, api: ApiClient, organizationId: string, programId: string, scale: ListScale) {
  const partnerIds: string[] = [];
  for (let i = 0; i < PARTNERS; i++) {
    partnerIds.push(
      (
        await api.post('/v1/partners', {
          program_id: programId,
          first_name: 'List',
          last_name: `Partner ${i}`,
          email: `list${i}@partners.example`,
        })
      ).data[0].id,
    );
  }
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const common = [organizationId, programId, partnerIds];
  await db.query(
    `insert into customers (id, organization_id, program_id, partner_id, identifier, email, status, lead_at, active_at, created_at, updated_at)
     select 'cust_list' || g, $1, $2, ($3::text[])[1 + g % ${PARTNERS}], 'user' || g || '@shop' || (g % 100) || '.example', 'user' || g || '@shop' || (g % 100) || '.example',
            case when g % 3 = 0 then 'lead' else 'active' end, now() - g * interval '1 minute', case when g % 3 = 0 then null else now() end,
            now() - g * interval '1 minute', now()
       from generate_series(1, $4::int) g`,
    [...common, scale.customers],
  );
  await db.query(
    `insert into transactions (id, organization_id, program_id, partner_id, customer_id, status, amount, refunded_amount, currency, billing_type, charge_id, created_at, updated_at)
     select 'txn_list' || g, $1, $2, ($3::text[])[1 + g % ${PARTNERS}], 'cust_list' || g, 'paid', 4900, 0, 'USD', 'one_time', 'ch_list' || g, now() - g * interval '1 minute', now()
       from generate_series(1, $4::int) g`,
    [...common, scale.transactions],
  );
  await db.query(
    `insert into commissions (id, organization_id, program_id, partner_id, customer_id, transaction_id, type, status, amount, revenue, currency, charge_id, approval_type, created_at, updated_at)
     select 'comm_list' || g, $1, $2, ($3::text[])[1 + g % ${PARTNERS}], 'cust_list' || g, 'txn_list' || g, 'reward', 'approved', 980, 4900, 'USD', 'ch_list' || g, 'immediate', now() - g * interval '1 minute', now()
       from generate_series(1, $4::int) g`,
    [...common, scale.transactions],
  );
  let clicks = 0;
  async function growClicks(total: number): Promise<void> {
    while (clicks < total) {
      const to = Math.min(total, clicks + BATCH);
      await db.query(
        `insert into clicks (id, organization_id, program_id, partner_id, device, created_at, updated_at)
         select 'clk_list' || g, $1, $2, ($3::text[])[1 + g % ${PARTNERS}], 'desktop', now() - g * interval '1 second', now()
           from generate_series($4::int, $5::int) g`,
        [...common, clicks + 1, to],
      );
      clicks = to;
    }
    await db.query('analyze');
  }
  await growClicks(scale.clicks);
  return {
    growClicks,
    /** The id of the k-th customer in the list's default order, for a cursor deep in a walk. */
    customerAt: async (k: number) =>
      (await db.query(`select id from customers where program_id = $1 order by created_at desc, id desc offset $2 limit 1`, [programId, k]))
        .rows[0].id as string,
    close: () => db.end(),
  };
}
