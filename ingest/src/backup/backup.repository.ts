import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** Whether the database holds svc's record of applied migrations (Kysely's table): an svc database. */
export async function hasMigrationTable(db: Db): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select to_regclass('public.kysely_migration') is not null as found`.execute(db);
  return rows[0].found;
}

/** How many tables, views and sequences the database holds outside PostgreSQL's own schemas. */
export async function countUserRelations(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
      and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%'`.execute(db);
  return rows[0].n;
}
