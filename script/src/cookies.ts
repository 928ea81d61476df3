import Cookies from 'js-cookie';

export interface SvcData {
  click_id: string;
  cookie_duration: number;
  partner_id: string;
  program_id: string;
  customer_id: string | null;
}

export const DATA = 'svc_data';
export const REF = 'svc_ref';
const PROBE = 'svc_probe';

/**
 * The shortest domain of `host` that accepts a cookie, so that acme.com, www.acme.com and
 * app.acme.com share the referral; public suffixes (com, co.uk) refuse one. None for an IP
 * address or a single-label host such as localhost.
 */
export function probeDomain(host: string): string | undefined {
  // An IP address (v4 ends in a numeric label, v6 in "]") or a single label has no parent domain to share.
  if (!/\.(?!\d+$)[a-z\d-]+$/i.test(host)) return undefined;
  const labels = host.split('.');
  for (let i = labels.length - 2; i >= 0; i--) {
    const domain = labels.slice(i).join('.');
    Cookies.set(PROBE, '1', { domain });
    if (Cookies.get(PROBE)) {
      Cookies.remove(PROBE, { domain });
      return domain;
    }
  }
  return undefined;
}

export type Jar = ReturnType<typeof Cookies.withAttributes>;

/** One js-cookie instance holds every attribute the script's cookies share. */
export function openJar(domain: string | undefined, secure: boolean): Jar {
  return Cookies.withAttributes({ path: '/', sameSite: 'Lax', secure, domain });
}

/** The referral in the svc_data cookie; reading depends on no attribute, so it needs no jar (nor probing). */
export function readData(): SvcData | null {
  try {
    const data = JSON.parse(Cookies.get(DATA)!);
    return data && data.click_id ? data : null;
  } catch {
    return null;
  }
}

/** svc_data (JSON) and svc_ref (the click id, for the merchant's server), both until `expires` (a date, or days from now). */
export function writeData(jar: Jar, data: SvcData, expires: Date | number): void {
  jar.set(DATA, JSON.stringify(data), { expires });
  jar.set(REF, data.click_id, { expires });
}
