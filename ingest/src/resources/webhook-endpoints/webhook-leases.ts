import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { type ClaimedDelivery, renewClaims } from './webhook-endpoints.repository.js';

/**
 * The leases one process holds on the webhook deliveries it claimed
 * (ingest/docs/webhooks.md#delivery). A claim holds its delivery for `leaseMs`; while the process
 * lives, every claim it still holds is renewed, all in one statement, every quarter of that. A slow
 * receiver therefore never lets another process take a delivery that is still being worked on,
 * while a process that dies leaves its deliveries to the others within one lease.
 *
 * A lease counts as held only up to the end SQL last confirmed. When renewals fail (PostgreSQL
 * unreachable), that end comes closer until `holds` says no, and the lane stops sending rather
 * than send under a lease another process may hold by then. Nothing here throws.
 */
export interface Leases {
  /** Claims just made, held until `until` (ms since the epoch). */
  take(claims: ClaimedDelivery[], until: number): void;
  /**
   * Whether the claim is held for at least `forMs` more. When it is not held that long, renews
   * at once (every claim) and answers by the outcome; false for a claim lost or let go.
   */
  holds(claim: ClaimedDelivery, forMs: number): Promise<boolean>;
  /** Claims recorded or given back: no longer renewed. */
  letGo(claims: ClaimedDelivery[]): void;
  close(): Promise<void>;
}

interface Held {
  claim: ClaimedDelivery;
  until: number;
}

export function createLeases(db: Db, logger: Logger, leaseMs: number): Leases {
  const held = new Map<string, Held>();
  let renewing: Promise<void> | null = null;

  /** One renewal of everything held; a renewal already under way is joined, not repeated. */
  function renew(): Promise<void> {
    renewing ??= renewAll().finally(() => {
      renewing = null;
    });
    return renewing;
  }

  async function renewAll(): Promise<void> {
    const batch = [...held.values()];
    if (batch.length === 0) return;
    const now = Date.now();
    const until = now + leaseMs;
    let renewed: Set<string>;
    try {
      const claims = batch.map((h) => ({ id: h.claim.id, attempt: h.claim.attempt_count, heldUntil: new Date(h.until) }));
      renewed = new Set(await renewClaims(db, claims, new Date(until), new Date(now)));
    } catch (err) {
      logger.warn(
        { reason: (err as Error).message, claims: batch.length },
        'renewing webhook delivery leases failed; a lane whose lease runs short stops sending, and its deliveries are made once the lease runs out',
      );
      return;
    }
    for (const h of batch) {
      // Let go meanwhile (recorded or given back): nothing to keep.
      if (held.get(h.claim.id) !== h) continue;
      if (renewed.has(h.claim.id)) h.until = until;
      // Not renewed: its lease ran out and another process took it over, or its end was not the
      // one this process knew (a renewal whose answer was lost). Either way it is not held.
      else held.delete(h.claim.id);
    }
  }

  const timer = setInterval(() => void renew(), leaseMs / 4);
  timer.unref();

  return {
    take(claims, until) {
      for (const claim of claims) held.set(claim.id, { claim, until });
    },
    async holds(claim, forMs) {
      const enough = () => {
        const h = held.get(claim.id);
        return h !== undefined && h.until - Date.now() >= forMs;
      };
      if (enough()) return true;
      if (!held.has(claim.id)) return false;
      await renew();
      return enough();
    },
    letGo(claims) {
      for (const claim of claims) held.delete(claim.id);
    },
    async close() {
      clearInterval(timer);
      await renewing;
    },
  };
}
