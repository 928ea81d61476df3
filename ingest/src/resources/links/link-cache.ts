import { afterCommit } from '../../db/request-transaction.js';
import type { SharedStore } from '../../store/index.js';

/** What a tracking lookup needs to know about a link. */
export interface ResolvedLink {
  id: string;
  partner_id: string;
  program_id: string;
}

const TTL_MS = 10 * 60 * 1000;
// "No such link" is remembered briefly: creating the link clears it anyway.
const MISS_TTL_MS = 30 * 1000;

/**
 * Owns the `lnk:` keys of the shared store: link lookups by (param, value), per program and
 * across an organization's programs. Kept in the shared store so that an update or delete on
 * one process is seen by every process at once.
 */
export function linkCacheKey(organizationId: string, programId: string | null, param: string, value: string): string {
  return `lnk:${organizationId}:${programId ?? '*'}:${param}:${value.toLowerCase()}`;
}

/** The cached lookup; null when not cached, or when the shared store cannot answer (SQL then does). */
export async function cachedLinks(store: SharedStore, key: string): Promise<ResolvedLink[] | null> {
  const raw = await store.get(key).catch(() => null);
  return raw === null ? null : (JSON.parse(raw) as ResolvedLink[]);
}

/** Keeps a lookup; a shared store that cannot take it is no error, the next lookup reads SQL again. */
export async function cacheLinks(store: SharedStore, key: string, links: ResolvedLink[]): Promise<void> {
  await store.set(key, JSON.stringify(links), links.length ? TTL_MS : MISS_TTL_MS).catch(() => {});
}

// A lookup that read SQL just before a change committed may write its stale answer after the
// first delete; a second delete shortly after closes that window.
const SECOND_DELETE_MS = 1000;
// While the shared store cannot take the delete, it is tried again, for as long as an entry
// written before the change could live.
const RETRY_MS = { first: 250, max: 5000 };

/**
 * Forgets every cached lookup that a link with this (param, value) could answer, once the
 * change is committed (after the commit of the request's transaction, when there is one). The
 * change never fails because of the shared store: a delete it refuses is retried in the
 * background until it succeeds or the entry would have expired anyway.
 */
export async function invalidateLinkLookups(
  store: SharedStore,
  link: { organization_id: string; program_id: string; param: string; value: string },
): Promise<void> {
  const keys = [
    linkCacheKey(link.organization_id, link.program_id, link.param, link.value),
    linkCacheKey(link.organization_id, null, link.param, link.value),
  ];
  const giveUpAt = Date.now() + TTL_MS;
  const forget = (delayMs: number): Promise<void> =>
    Promise.all(keys.map((k) => store.delete(k))).then(
      () => {},
      () => {
        if (Date.now() < giveUpAt) setTimeout(() => void forget(Math.min(delayMs * 2, RETRY_MS.max)), delayMs).unref();
      },
    );
  let first = Promise.resolve();
  afterCommit(() => {
    first = forget(RETRY_MS.first);
    setTimeout(() => void forget(RETRY_MS.first), SECOND_DELETE_MS).unref();
  });
  await first;
}
