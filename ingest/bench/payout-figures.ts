import pg from 'pg';
import type { ApiClient } from '../client/api-client.js';
import { openDatabase } from '../src/db/database.js';
import { generateProgramPayouts } from '../src/resources/payouts/payouts.service.js';
import { timeGets } from './load.js';
import { statementCounter } from './statement-counter.js';

export interface PayoutScale {
  partners: number;
  commissions: number;
}

export interface PayoutFigure extends PayoutScale {
  payouts: number;
  seconds: number;
  statements: number;
  /** GET /v1/programs/:id/balances, 100 partners a page, after the generation. */
  balances: { p50: number; p99: number };
}

/**
 * Payout generation at scale: a program of its own per scale, its partners (PayPal) and their
 * approved commissions inserted with plain SQL (the triggers run as for any insert), then one
 * generation through the service the API calls, timed, with the SQL statements it issued counted;
 * then the balances list, a page of 100 partners.
 */
export async function payoutFigures(
  databaseUrl: string,
  api: ApiClient,
  apiKey: string,
  organizationId: string,
  scales: PayoutScale[],
): Promise<PayoutFigure[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const counter = statementCounter();
  const db = openDatabase({ kind: 'postgres', url: databaseUrl });
  const figures: PayoutFigure[] = [];
  try {
    for (const [n, scale] of scales.entries()) {
      const program = (await api.post('/v1/programs', { name: `Payouts ${n}` })).data[0];
      const tag = `p${n}x`;
      await client.query(
        `insert into partners (id, organization_id, program_id, group_id, status, first_name, last_name, email, payout_method, payout_details,
                               completed_onboarding, first_customer_email_active, new_customer_email_active, payout_paid_email_active, created_at, updated_at)
         select 'part_${tag}' || g, $1, $2, $3, 'active', 'Bench', 'Partner ' || g, 'p' || g || '@${tag}.example', 'paypal',
                jsonb_build_object('email', 'pay' || g || '@${tag}.example'), true, true, true, true, now(), now()
           from generate_series(1, $4::int) g`,
        [organizationId, program.id, program.default_group_id, scale.partners],
      );
      await client.query(
        `insert into commissions (id, organization_id, program_id, partner_id, type, status, amount, currency, approval_type, created_at, updated_at)
         select 'comm_${tag}' || g, $1, $2, 'part_${tag}' || (1 + g % $3::int), 'reward', 'approved', 100 + g % 900, 'USD', 'manual',
                now() - g * interval '1 second', now()
           from generate_series(1, $4::int) g`,
        [organizationId, program.id, scale.partners, scale.commissions],
      );
      await client.query('analyze partners');
      await client.query('analyze commissions');
      const counted = db.withPlugin(counter.plugin);
      counter.reset();
      const started = performance.now();
      const result = await generateProgramPayouts(counted, organizationId, { program_id: program.id });
      const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
      const balancesUrl = `${api.baseUrl}/v1/programs/${program.id}/balances?limit=100`;
      const headers = { authorization: `Bearer ${apiKey}` };
      await timeGets(balancesUrl, headers, 5);
      const balances = await timeGets(balancesUrl, headers, 40);
      figures.push({ ...scale, payouts: result.payouts.length, seconds, statements: counter.count, balances });
    }
  } finally {
    await db.destroy();
    await client.end();
  }
  return figures;
}
