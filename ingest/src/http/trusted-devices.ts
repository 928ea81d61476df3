import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';
import { randomBase62, sha256 } from '../ids.js';
import type { SharedStore } from '../store/index.js';

/**
 * Browsers that have signed in before ("device cookies", after OWASP's advice on online guessing):
 * a sign-in limit counted per client address would let one person behind a shared address (an
 * office, a mobile carrier's NAT) lock everybody else there out. A browser that proved itself once
 * (a right password, a used sign-in link) carries a random token in an HttpOnly cookie, and its own
 * attempts are counted against that token instead of the address
 * (ingest/docs/api.md#shared-addresses). Guessing from a new browser stays limited per address as
 * before.
 *
 * The token's SHA-256 names an entry of the shared store, `device:<scope>:<hash>` (this module
 * owns that key family), holding who signed in with it. It lasts TRUST_DAYS from the last
 * sign-in. Losing the shared store loses the trust, never access: those browsers are then
 * counted per address again, as new ones are.
 */
export interface TrustedDevice {
  /** The key to count this browser's attempts under (the token's hash). */
  key: string;
  /** Who signed in with it last (an e-mail, a program: the caller decides). */
  identity: string;
}

export interface TrustedDevices {
  /** The browser's trusted device, or null (no cookie, an unknown or expired token, or the shared store down). */
  recognize(req: Request): Promise<TrustedDevice | null>;
  /**
   * After a sign-in: the browser is trusted for TRUST_DAYS more, as `identity`; `path` is where it
   * sends the cookie. A browser `recognize` knew keeps its token; any other gets a new one (never
   * one it brought, so that nobody can choose another browser's token).
   */
  remember(req: Request, res: Response, device: TrustedDevice | null, identity: string, path: string): Promise<void>;
}

export const TRUST_DAYS = 180;
const TRUST_MS = TRUST_DAYS * 86_400_000;
const TOKEN = /^[0-9A-Za-z]{32}$/;

/** `scope` names the key family's part (dashboard, portal). */
export function trustedDevices(store: SharedStore, scope: string): TrustedDevices {
  const cookieName = (req: Request) => (req.secure ? '__Secure-svc_device' : 'svc_device');
  const keyOf = (hash: string) => `device:${scope}:${hash}`;
  const tokenOf = (req: Request) => {
    const token = parseCookies(req.get('cookie') ?? '')[cookieName(req)];
    return token && TOKEN.test(token) ? token : undefined;
  };
  return {
    async recognize(req) {
      const token = tokenOf(req);
      if (!token) return null;
      const key = sha256(token);
      const identity = await store.get(keyOf(key)).catch(() => null);
      return identity === null ? null : { key, identity };
    },
    async remember(req, res, device, identity, path) {
      const presented = tokenOf(req);
      const token = device && presented && sha256(presented) === device.key ? presented : randomBase62(32);
      try {
        await store.set(keyOf(sha256(token)), identity, TRUST_MS);
      } catch {
        return; // no trust without the shared store: this browser is counted per address, as new ones are
      }
      res.cookie(cookieName(req), token, {
        httpOnly: true,
        sameSite: 'strict',
        secure: req.secure,
        path,
        maxAge: TRUST_MS,
      });
    },
  };
}
