import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

// What proves a form comes from a page of svc's own, in the dashboard and the portal alike.

/**
 * Whether the browser says the request comes from svc's own pages (or says nothing, as
 * non-browser clients do). A browser that sends no Sec-Fetch-Site names the page's origin, which
 * must be svc's public address (SVC_PUBLIC_URL): the request's own Host is the sender's to choose.
 */
export function fromThisOrigin(req: Request, publicUrl: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = req.get('origin');
  if (origin === undefined) return true;
  return origin === publicUrl;
}

/** A form's token against the session's, in constant time. */
export function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}
