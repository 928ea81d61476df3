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

export async function cachedLinks(store: SharedStore, key: string): Promise<ResolvedLink[] | null> {
  const raw = await store.get(key);
  return raw === null ? null : (JSON.parse(raw) as ResolvedLink[]);
}

export async function cacheLinks(store: SharedStore, key: string, links: ResolvedLink[]): Promise<void> {
  await store.set(key, JSON.stringify(links), links.length ? TTL_MS : MISS_TTL_MS);
}

// A lookup that read SQL just before a change committed may write its stale answer after the
// first delete; a second delete shortly after closes that window.
const SECOND_DELETE_MS = 1000;

/** Forgets every cached lookup that a link with this (param, value) could answer. Call after commit. */
export async function invalidateLinkLookups(
  store: SharedStore,
  link: { organization_id: string; program_id: string; param: string; value: string },
): Promise<void> {
  const keys = [linkCacheKey(link.organization_id, link.program_id, link.param, link.value), linkCacheKey(link.organization_id, null, link.param, link.value)];
  const forget = () => Promise.all(keys.map((k) => store.delete(k)));
  await forget();
  setTimeout(() => forget().catch(() => {}), SECOND_DELETE_MS).unref();
}
