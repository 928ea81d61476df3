/** Reading the referral from a URL, and what of the page and referrer leaves the browser. */

export interface Referral {
  param: string;
  value: string;
}

/** The first configured tracking parameter present in the URL, in the configured order. */
export function findReferral(url: URL, params: string[]): Referral | null {
  for (const param of params) {
    const value = url.searchParams.get(param);
    if (value) return { param, value };
  }
  return null;
}

/** The page without its query string, except the tracking parameter; no fragment. */
export function trimPage(url: URL, ref: Referral): string {
  return url.origin + url.pathname + '?' + new URLSearchParams([[ref.param, ref.value]]);
}

/** Only the referrer's origin and path (document.referrer is an absolute URL or empty). */
export function trimReferrer(referrer: string): string | undefined {
  return referrer.split(/[?#]/)[0] || undefined;
}
