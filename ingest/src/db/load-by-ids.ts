import type { Selectable } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/**
 * Loads the rows of `table` with these ids in one query, for expanding related objects on a page.
 * A soft-deleted row is left out: deleted records are hidden from the API, expanded ones too.
 */
export async function loadByIds<T extends keyof Database>(
  db: Db,
  table: T,
  ids: Iterable<string>,
): Promise<Map<string, Selectable<Database[T]>>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type a query over a table chosen at run time; the result is typed below
  const rows = (await (db as any).selectFrom(table).selectAll().where('id', 'in', unique).execute()) as Selectable<Database[T]>[];
  const live = rows.filter((r) => (r as { deleted_at?: unknown }).deleted_at == null);
  return new Map(live.map((r) => [(r as { id: string }).id, r]));
}
