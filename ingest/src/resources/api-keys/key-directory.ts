import type { Db } from '../../db/database.js';
import { listActiveKeyHashes } from './api-keys.repository.js';

/**
 * Which secret keys exist, known in process: an address throttled for wrong keys (http/auth.ts)
 * is still served its valid keys, while its wrong guesses are refused without reaching SQL. The
 * directory is read from SQL only when such an address presents a key it does not know, and then
 * at most once every `reloadAfterMs` (one statement, whatever the number of guesses), or at once
 * after `stale()`: a key made in this or another process (the API; `svc keys create` reaches the
 * others within `reloadAfterMs`). A key that is listed but no longer valid (revoked) only costs
 * the lookup that finds it gone, after which `forget` drops it.
 */
export interface KeyDirectory {
  has(secretHash: string): Promise<boolean>;
  forget(secretHash: string): void;
  /** Keys changed somewhere: the next miss reads the directory again. */
  stale(): void;
}

export const KEY_DIRECTORY_RELOAD_MS = 5000;

export function createKeyDirectory(db: Db, reloadAfterMs = KEY_DIRECTORY_RELOAD_MS): KeyDirectory {
  let hashes: Set<string> | null = null;
  let loadedAt = 0;
  let loading: Promise<Set<string>> | null = null;
  // A change announced while a read was under way may be missing from it: that read is not fresh.
  let changes = 0;
  // Guesses that arrive together wait for one read.
  const load = () => {
    const seen = changes;
    loading ??= listActiveKeyHashes(db)
      .then((list) => {
        hashes = new Set(list);
        loadedAt = seen === changes ? Date.now() : 0;
        return hashes;
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  };
  return {
    async has(secretHash) {
      if (hashes?.has(secretHash)) return true;
      if (hashes && Date.now() - loadedAt < reloadAfterMs) return false;
      return (await load()).has(secretHash);
    },
    forget(secretHash) {
      hashes?.delete(secretHash);
    },
    stale() {
      changes++;
      loadedAt = 0;
    },
  };
}
