import type { Db } from '../../db/database.js';
import { inRequestTransaction } from '../../db/request-transaction.js';
import { type ClickInsert, insertClicks } from './clicks.repository.js';

export type { ClickInsert };

/** Writes clicks; a call resolves once its click is committed. */
export type ClickWriter = (row: ClickInsert) => Promise<void>;

interface Pending {
  row: ClickInsert;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * Group commit for clicks: the clicks that arrive during one turn of the event loop are
 * written by one multi-row INSERT, and every caller is answered once that statement has
 * committed. Each click is durable before its response is sent, at a fraction of the commits.
 */
export function createClickWriter(db: Db, onCommitted?: (rows: number) => void): ClickWriter {
  let pending: Pending[] = [];

  const insert = async (rows: ClickInsert[]) => {
    await insertClicks(db, rows);
    onCommitted?.(rows.length);
  };

  async function flush(): Promise<void> {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    try {
      await insert(batch.map((p) => p.row));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // One bad row must not fail its neighbours: each is tried on its own.
      await Promise.all(batch.map((p) => insert([p.row]).then(p.resolve, p.reject)));
    }
  }

  return (row) => {
    // A click of a request that runs in its own SQL transaction (Idempotency-Key) commits with
    // it, so it cannot share a statement with other requests' clicks.
    if (inRequestTransaction()) return insert([row]);
    return new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ row, resolve, reject });
      if (pending.length >= MAX_BATCH) void flush();
    });
  };
}
