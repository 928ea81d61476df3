import { sql } from 'kysely';
import type { Db } from './database.js';
import type { COUNTED_LISTS } from './migrations/0005_lists_at_scale.js';

export type CountedList = (typeof COUNTED_LISTS)[number];

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
