/** Reading the referral from a URL, and what of the page and referrer leaves the browser. */

import { AD_CLICK_IDS } from './ad-click-ids';

/** The tracking parameter found in the URL and its value, e.g. ['ref', 'alice']. */
export type Referral = [param: string, value: string];

/** The first configured tracking parameter present in the URL's query, in the configured order. */
export function findReferral(url: URL, params: string[]): Referral | undefined {
  for (const param of params) {
    const value = url.searchParams.get(param);
    if (value) return [param, value];
  }
}

/**
 * The referral in the URL's query, else in the fragment's own query, where hash-routed apps keep
 * theirs: #/pricing?ref=alice, or #ref=alice (a fragment without `?` is the query itself).
 */
export function findReferralOrInFragment(url: URL, params: string[]): Referral | undefined {
  return findReferral(url, params) || findReferral(new URL('?' + url.hash.replace(/^#([^?]*\?)?/, ''), url), params);
}

/** The page without its query string, except the tracking parameter; no fragment. */
export function trimPage(url: URL, ref: Referral): string {
  return url.origin + url.pathname + '?' + new URLSearchParams([ref]);
}

/**
 * Only the referrer's origin and path, and only for a web page: document.referrer is an
 * absolute URL or empty, and may name an app (android-app://…) that the API has no use for.
 */
export function trimReferrer(referrer: string): string | undefined {
  return referrer.match(/^https?:[^?#]*/)?.[0];
}

/**
 * The names, never the values, of the ad click ids (AD_CLICK_IDS) in the URL's query string, in
 * that list's order, for the server's paid-ad traffic rule. A name counts when present with any
 * value, an empty one included (`?gclid=`): the ad network put it there, and its value is never
 * sent anyway. Undefined when there is none, so an ordinary click's body is unchanged.
 */
export function findAdClickIds(url: URL): string[] | undefined {
  const names = AD_CLICK_IDS.filter((name) => url.searchParams.has(name));
  if (names[0]) return names;
}
