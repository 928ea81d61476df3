import { sql, type Kysely } from 'kysely';

export interface ShardedCounter {
  /** The table whose rows are counted, e.g. `transactions`. */
  table: string;
  /** The counter table: (key, shard) primary key, one int8 column per counter. */
  counters: 'partner_stats' | 'list_counts';
  /** The column of `table` (and of `counters`) that groups the counts, e.g. `partner_id`. */
  key: string;
  /** The counter column to keep. */
  counter: string;
  /** What one row of `table` adds to its key's counter, a SQL expression over the row. */
  contribution: string;
}

/**
 * Keeps `counters.counter` for the rows of `table`, in the same SQL transaction as each change.
 * Statement-level triggers sum a whole statement per key from its transition tables (old rows
 * taken from their key, new rows added to theirs, so a row moved to another key moves its
 * figure) and write in key order: statements touching several keys on several connections lock
 * counter rows in one order and cannot deadlock on them. Each connection writes the shard of its
 * backend, so concurrent writers of one key do not queue on one row. Transition tables need one
 * trigger per event; the SQL is static, so PL/pgSQL keeps its plans.
 */
export async function keepShardedCounter(db: Kysely<any>, c: ShardedCounter): Promise<void> {
  const name = `${c.counters}_${c.table}_${c.counter}`;
  const rows = (transition: string, sign: '' | '-') => `select ${c.key} as k, ${sign}(${c.contribution}) as d from ${transition}`;
  const add = (deltas: string) => `
        insert into ${c.counters} as s (${c.key}, shard, ${c.counter})
        select k, pg_backend_pid() % 16, sum(d)::int8 from (${deltas}) as deltas
         group by k having sum(d) <> 0 order by k
        on conflict (${c.key}, shard) do update set ${c.counter} = s.${c.counter} + excluded.${c.counter};`;
  await sql
    .raw(
      `create function svc_${name}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${add(rows('new_rows', ''))}
        elsif tg_op = 'UPDATE' then ${add(`${rows('old_rows', '-')} union all ${rows('new_rows', '')}`)}
        else ${add(rows('old_rows', '-'))}
        end if;
        return null;
      end $$`,
    )
    .execute(db);
  const on = `for each statement execute function svc_${name}()`;
  await sql.raw(`create trigger ${name}_insert after insert on ${c.table} referencing new table as new_rows ${on}`).execute(db);
  await sql.raw(`create trigger ${name}_update after update on ${c.table} referencing old table as old_rows new table as new_rows ${on}`).execute(db);
  await sql.raw(`create trigger ${name}_delete after delete on ${c.table} referencing old table as old_rows ${on}`).execute(db);
}

/** Undoes `keepShardedCounter`. */
export async function dropShardedCounter(db: Kysely<any>, c: Pick<ShardedCounter, 'table' | 'counters' | 'counter'>): Promise<void> {
  const name = `${c.counters}_${c.table}_${c.counter}`;
  for (const event of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${name}_${event} on ${c.table}`).execute(db);
  await sql.raw(`drop function if exists svc_${name}()`).execute(db);
}
