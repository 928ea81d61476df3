/**
 * The script's first-party cookies, written straight to document.cookie: every cookie shares
 * Path=/, SameSite=Lax, Secure on an https page and the (probed or configured) domain, and the
 * values are percent-encoded, so JSON survives the `;`, `,`, `"` and spaces a cookie cannot hold.
 */

export const DATA = 'svc_data';
export const REF = 'svc_ref';
/** The landing page of a click sent but not yet answered (see index.ts): the next page finishes it. */
export const PENDING = 'svc_pending';
const PROBE = 'svc_probe';

/**
 * Removal by a fixed date in the past: an expiry computed from the page's clock is still in the
 * future for the browser when the visitor's clock runs ahead, and the cookie would stay.
 */
export const EXPIRED = ';expires=Thu, 01 Jan 1970 00:00:00 GMT';

/** Writes one cookie with the shared attributes, then `tail` (;max-age=… or EXPIRED; none: a session cookie). */
export type Jar = (name: string, value: string, tail?: string) => void;

export function openJar(domain: string | undefined): Jar {
  const shared = ';path=/;samesite=Lax' + (location.protocol == 'https:' ? ';secure' : '') + (domain ? ';domain=' + domain : '');
  return (name, value, tail = '') => {
    document.cookie = name + '=' + encodeURIComponent(value) + shared + tail;
  };
}

/** A cookie's decoded value (the first of that name, as document.cookie lists them); throws on a broken encoding. */
export function readCookie(name: string): string | null {
  const found = document.cookie.match('(^|; )' + name + '=([^;]*)');
  return found && decodeURIComponent(found[2]);
}

/**
 * The shortest domain of `host` that accepts a cookie, so that acme.com, www.acme.com and
 * app.acme.com share the referral; public suffixes (com, co.uk) refuse one. The browser decides,
 * but not on an IP address (location.hostname 127.0.0.1 or [::1]): it has no parent domain, yet
 * WebKit keeps a cookie claiming `domain=0.1` on 127.0.0.1, so it is not probed and its cookies
 * stay host-only. A single-label host (localhost) has no parent to try.
 */
export function probeDomain(host: string): string | undefined {
  // A URL's IPv4 host is dotted decimal (a name cannot end in a numeric label, the URL parser
  // reads such a host as IPv4); an IPv6 host ([::1], [::ffff:7f00:1]) has no dot to cut at.
  if (/^[\d.]+$/.test(host)) return;
  const labels = host.split('.');
  // From the shortest candidate (the last two labels) to the whole host.
  for (let i = labels.length - 1; i--; ) {
    const domain = labels.slice(i).join('.');
    const jar = openJar(domain);
    jar(PROBE, '1');
    if (readCookie(PROBE)) {
      jar(PROBE, '', EXPIRED);
      return domain;
    }
  }
  return undefined;
}

/**
 * The referral in the svc_data cookie, or null when there is none the script can trust: a cookie
 * that is not JSON, or whose click_id is not an id the API could have issued (a number, an
 * object, a damaged or foreign value), is ignored, and the next referral replaces it.
 */
export function readData(): SvcData | null {
  try {
    const data = JSON.parse(readCookie(DATA)!); // no cookie, not JSON, or JSON null (at .click_id): null
    // Only a string has match(): a number, array or object has none (or one that is not a function, which throws).
    if (data.click_id.match?.(/^clk_\w{1,60}$/)) return data;
  } catch {
    // Not JSON, a broken encoding, or no click_id at all: untrusted too.
  }
  return null;
}

/**
 * svc_data (JSON) and svc_ref (the click id, for the merchant's server), both for `maxAge`
 * seconds: the server counts them from the click, so the visitor's clock does not matter.
 */
export function writeData(jar: Jar, data: SvcData, maxAge: number): void {
  const tail = ';max-age=' + maxAge;
  jar(DATA, JSON.stringify(data), tail);
  jar(REF, data.click_id, tail);
}
