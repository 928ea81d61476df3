import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/errors.js';
import { afterCommit, beginRequestTransaction, inRequestTransaction } from '../../src/db/request-transaction.js';
import { inTransaction } from '../../src/db/transaction.js';
import { openTestStorage, STORAGE, type TestStorage } from '../support/harness.js';
import { EVENTUALLY } from '../support/time.js';

/**
 * A request's SQL transaction (what an Idempotency-Key request runs in): every statement
 * issued inside it joins it, a service's own transaction is a savepoint in it, and a failed
 * statement leaves it usable.
 */
describe('request transaction', () => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await openTestStorage();
    await sql`create table notes (id int primary key, body text not null)`.execute(storage.db);
  });
  afterAll(() => storage.close());

  const db = () => storage.db;
  const bodies = async () => (await sql<{ body: string }>`select body from notes order by id`.execute(db())).rows.map((r) => r.body);
  const insert = (id: number, body: string) =>
    db()
      .insertInto('notes' as never)
      .values({ id, body } as never)
      .execute();

  it('commits what every statement inside it wrote, together', async () => {
    await sql`delete from notes`.execute(db());
    const trx = await beginRequestTransaction(db());
    await trx.run(async () => {
      expect(inRequestTransaction()).toBe(true);
      await insert(1, 'one');
      await inTransaction(db(), async (t) => {
        await t
          .insertInto('notes' as never)
          .values({ id: 2, body: 'two' } as never)
          .execute();
      });
    });
    expect(inRequestTransaction()).toBe(false);
    await trx.commit();
    expect(await bodies()).toEqual(['one', 'two']);
  });

  it('rolls back everything, the inner transactions too', async () => {
    await sql`delete from notes`.execute(db());
    const trx = await beginRequestTransaction(db());
    await trx.run(async () => {
      await insert(1, 'one');
      await inTransaction(db(), (t) =>
        t
          .insertInto('notes' as never)
          .values({ id: 2, body: 'two' } as never)
          .execute(),
      );
    });
    await trx.rollback();
    expect(await bodies()).toEqual([]);
  });

  it('a failed statement (a unique violation) undoes only itself: the request can go on reading and writing', async () => {
    await sql`delete from notes`.execute(db());
    const trx = await beginRequestTransaction(db());
    await trx.run(async () => {
      await insert(1, 'one');
      await expect(insert(1, 'again')).rejects.toMatchObject({ code: '23505' });
      expect(
        (await db()
          .selectFrom('notes' as never)
          .select(sql`count(*)::int`.as('n'))
          .executeTakeFirstOrThrow()) as { n: number },
      ).toEqual({ n: 1 });
      await insert(2, 'two');
    });
    await trx.commit();
    expect(await bodies()).toEqual(['one', 'two']);
  });

  it('an inner transaction that fails rolls back to its savepoint; the outer work stands', async () => {
    await sql`delete from notes`.execute(db());
    const trx = await beginRequestTransaction(db());
    await trx.run(async () => {
      await insert(1, 'kept');
      await expect(
        inTransaction(db(), async (t) => {
          await t
            .insertInto('notes' as never)
            .values({ id: 2, body: 'undone' } as never)
            .execute();
          throw new Error('the service gave up');
        }),
      ).rejects.toThrow('the service gave up');
    });
    await trx.commit();
    expect(await bodies()).toEqual(['kept']);
  });

  it('runs after-commit effects after the commit, outside the transaction, and drops them on rollback', async () => {
    await sql`delete from notes`.execute(db());
    const seen: string[] = [];
    const committed = await beginRequestTransaction(db());
    await committed.run(async () => {
      await insert(1, 'visible later');
      afterCommit(() => seen.push(`after commit, in a request transaction: ${inRequestTransaction()}`));
      expect(seen).toEqual([]);
    });
    await committed.commit();
    expect(seen).toEqual(['after commit, in a request transaction: false']);

    const rolledBack = await beginRequestTransaction(db());
    await rolledBack.run(() => afterCommit(() => seen.push('never')));
    await rolledBack.rollback();
    expect(seen).toHaveLength(1);

    afterCommit(() => seen.push('at once outside'));
    expect(seen.at(-1)).toBe('at once outside');
  });

  // The pg driver queues statements in its client: a ROLLBACK sent while one statement runs and
  // another waits in the request's queue would go before the waiting one, which would then run
  // outside the transaction, on a connection already back in the pool.
  it.skipIf(STORAGE === 'embedded')('a statement still queued when the transaction ends is refused, never run outside it', async () => {
    await sql`delete from notes`.execute(db());
    // The slow statement waits for a lock the test holds on a connection of its own, until the
    // test lets go: it is still running when the transaction ends, however slow the machine.
    const LOCK = 7_340_001;
    await db()
      .connection()
      .execute(async (holder) => {
        await sql`select pg_advisory_lock(${LOCK})`.execute(holder);
        const trx = await beginRequestTransaction(db());
        const { slow, queued } = await trx.run(async () => {
          const slow = sql`select pg_advisory_xact_lock(${LOCK})`.execute(db());
          // Waits behind the slow one, as concurrent statements of one request do.
          const queued = insert(1, 'late');
          queued.catch(() => {});
          await vi.waitFor(async () => {
            const { rows } = await sql<{ waiting: number }>`
              select count(*)::int as waiting from pg_locks where locktype = 'advisory' and objid = ${LOCK} and not granted`.execute(
              holder,
            );
            expect(rows[0].waiting).toBe(1);
          }, EVENTUALLY);
          return { slow, queued };
        });
        const ended = trx.rollback();
        await sql`select pg_advisory_unlock(${LOCK})`.execute(holder);
        await ended;
        await expect(slow).resolves.toBeDefined();
        await expect(queued).rejects.toThrow('The request transaction has ended');
      });
    expect(await bodies()).toEqual([]);
  });

  it('undoToMark undoes what came after the mark, also an aborted statement, and keeps what came before', async () => {
    await sql`delete from notes`.execute(db());
    const trx = await beginRequestTransaction(db());
    await trx.run(() => insert(1, 'before the mark'));
    await trx.mark();
    await trx.run(async () => {
      await insert(2, 'after the mark');
      // A failed read aborts a transaction (no per-statement savepoint for reads).
      await expect(sql`select 1 / 0`.execute(db())).rejects.toMatchObject({ code: '22012' });
    });
    await trx.undoToMark();
    await trx.run(() => insert(3, 'after the undo'));
    await trx.commit();
    expect(await bodies()).toEqual(['before the mark', 'after the undo']);
  });

  it.skipIf(STORAGE === 'embedded')('is invisible to other connections until it commits', async () => {
    await sql`delete from notes`.execute(db());
    const trx = await beginRequestTransaction(db());
    await trx.run(() => insert(1, 'pending'));
    // Outside the scope, statements use other pooled connections.
    expect(await bodies()).toEqual([]);
    await trx.commit();
    expect(await bodies()).toEqual(['pending']);
  });
});

describe('isDatabaseUnavailable', () => {
  const err = (props: Record<string, unknown>, message = 'x') => Object.assign(new Error(message), props);

  it.each([
    ['a terminated backend (57P01)', err({ code: '57P01' })],
    ['a server starting up (57P03)', err({ code: '57P03' })],
    ['too many connections (53300)', err({ code: '53300' })],
    ['a connection exception (08006)', err({ code: '08006' })],
    ['a refused connection', err({ code: 'ECONNREFUSED' })],
    ['a reset connection', err({ code: 'ECONNRESET' })],
    ['a connection that ended', err({}, 'Connection terminated unexpectedly')],
    ['a pool that could not connect in time', err({}, 'timeout exceeded when trying to connect')],
    ['a wrapped cause', err({ cause: err({ code: 'ECONNREFUSED' }) }, 'Connection terminated due to connection timeout')],
    ['a cancelled statement (57014: statement_timeout, pg_cancel_backend)', err({ code: '57014' })],
  ])('is true for %s', (_label, e) => {
    expect(isDatabaseUnavailable(e)).toBe(true);
  });

  it.each([
    ['a unique violation', err({ code: '23505' })],
    ['a syntax error', err({ code: '42601' })],
    ['a deadlock (retried, not a 503)', err({ code: '40P01' })],
    ['an arbitrary error', new Error('boom')],
    ['not an error', 'Connection terminated'],
  ])('is false for %s', (_label, e) => {
    expect(isDatabaseUnavailable(e)).toBe(false);
  });
});
