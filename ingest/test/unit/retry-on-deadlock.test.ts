import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { retryOnDeadlock } from '../../src/db/transaction.js';

/** A unit of work that PostgreSQL aborted to break a deadlock runs again; nothing else does. */
describe('retryOnDeadlock', () => {
  const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });
  // Outside a request transaction the work is handed the database as it is and runs no SQL here.
  const db = {} as Db;

  it('runs the work again after a deadlock and returns what the next run gives', async () => {
    let runs = 0;
    const result = await retryOnDeadlock(db, async () => {
      runs++;
      if (runs === 1) throw deadlock();
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(2);
  });

  it('gives up after three deadlocks in a row, with the last error', async () => {
    let runs = 0;
    await expect(
      retryOnDeadlock(db, async () => {
        runs++;
        throw deadlock();
      }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(3);
  });

  it('does not run again after any other error', async () => {
    let runs = 0;
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    await expect(
      retryOnDeadlock(db, async () => {
        runs++;
        throw unique;
      }),
    ).rejects.toBe(unique);
    expect(runs).toBe(1);
  });
});
