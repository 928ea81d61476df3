import { sql } from 'kysely';
import type { Db } from './database.js';
/** The lists whose unfiltered total_count comes from the trigger-kept list_counts (migration 0005). */
export type CountedList = 'customers' | 'transactions' | 'commissions';

/** The program's live rows of a counted list, exact, from the trigger-kept counters (at most 16 rows read). */
export function programTotal(db: Db, list: CountedList, programId: string): () => Promise<number> {
  return async () => {
    const row = await db
      .selectFrom('list_counts')
      .select(sql<number>`coalesce(sum(${sql.ref(list)}), 0)::int8`.as('n'))
      .where('program_id', '=', programId)
      .executeTakeFirstOrThrow();
    return row.n;
  };
}
