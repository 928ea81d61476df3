import { sql } from 'kysely';
import type { Response } from 'supertest';
import { expect, vi } from 'vitest';
import type { TestApp } from './harness.js';
import { EVENTUALLY } from './time.js';

/**
 * Sends a request whose write waits on a lock of `table`, terminates the backend that waits (as
 * a failover or pg_terminate_backend would), then lets go. Returns the request's answer.
 * PostgreSQL only: PGlite has no second backend to terminate.
 */
export async function sendWhileTerminated(t: TestApp, table: string, send: () => Promise<Response>): Promise<Response> {
  return t.storage.db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    await sql`lock table ${sql.table(table)} in exclusive mode`.execute(conn);
    // A supertest request is sent once something waits for it.
    const answer = send().then((r) => r);
    try {
      let pid = 0;
      await vi.waitFor(async () => {
        const { rows } = await sql<{ pid: number }>`
          select pid from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(conn);
        expect(rows).toHaveLength(1);
        pid = rows[0].pid;
      }, EVENTUALLY);
      await sql`select pg_terminate_backend(${pid})`.execute(conn);
      return await answer;
    } finally {
      await sql`commit`.execute(conn);
    }
  });
}
