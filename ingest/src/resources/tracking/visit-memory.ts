import { sha256 } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import type { ResolvedLink } from '../links/link-cache.js';

/** A click remembered for a visitor: its id, and when it was handed out (ms since the epoch). */
export interface Remembered {
  id: string;
  at: number;
}

const encode = (id: string, at: Date) => JSON.stringify({ id, at: at.getTime() } satisfies Remembered);

function decode(value: string | null): Remembered | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value) as Partial<Remembered>;
    return typeof parsed.id === 'string' && typeof parsed.at === 'number' ? { id: parsed.id, at: parsed.at } : null;
  } catch {
    return null;
  }
}

/** Whether this visit's click is now the remembered one, or the one remembered before it. */
export type Claim = { mine: true } | { mine: false; earlier: Remembered | null };

/**
 * Owns the `trk:visit:` keys of the shared store: the click a visitor (IP address and
 * User-Agent, hashed) got on a link within `windowMs`. The store is a speed-up here, never the
 * record: while it cannot answer, every visit claims its own click (a repeat is then counted
 * as a new click, and no click is lost).
 */
export function visitMemory(store: SharedStore, link: ResolvedLink, visitor: { ip: string; userAgent?: string | null }, windowMs: number) {
  const key = `trk:visit:${link.id}:${sha256(`${visitor.ip}\n${visitor.userAgent ?? ''}`).slice(0, 32)}`;
  return {
    /** Remembers `id` for the visitor unless a click is remembered already, which it then recalls. */
    async claim(id: string, at: Date): Promise<Claim> {
      if (await store.setIfAbsent(key, encode(id, at), windowMs).catch(() => true)) return { mine: true };
      return { mine: false, earlier: decode(await store.get(key).catch(() => null)) };
    },
    /** Remembers `id` in place of a recalled click that cannot be handed out. */
    async replace(id: string, at: Date): Promise<void> {
      await store.set(key, encode(id, at), windowMs).catch(() => {});
    },
    /** Forgets the visitor's click (its insert failed). */
    async forget(): Promise<void> {
      await store.delete(key).catch(() => {});
    },
  };
}
