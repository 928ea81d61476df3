import Cookies from 'js-cookie';

export const DATA = 'svc_data';
export const REF = 'svc_ref';
const PROBE = 'svc_probe';

export type Jar = ReturnType<typeof Cookies.withAttributes>;

/**
 * One js-cookie instance holds every attribute the script's cookies share (no cookie options
 * anywhere else): js-cookie's default path=/, SameSite Lax, Secure on an https page, the domain.
 */
export function openJar(domain: string | undefined): Jar {
  return Cookies.withAttributes({ sameSite: 'Lax', secure: location.protocol == 'https:', domain });
}

/**
 * The shortest domain of `host` that accepts a cookie, so that acme.com, www.acme.com and
 * app.acme.com share the referral; public suffixes (com, co.uk) refuse one. The browser decides:
 * a single-label host (localhost) has no parent to try, and an IP address accepts only itself.
 */
export function probeDomain(host: string): string | undefined {
  const labels = host.split('.');
  for (let i = labels.length - 2; i >= 0; i--) {
    const domain = labels.slice(i).join('.');
    const jar = openJar(domain);
    jar.set(PROBE, '1');
    if (jar.get(PROBE)) {
      jar.remove(PROBE);
      return domain;
    }
  }
  return undefined;
}

/** The referral in the svc_data cookie; reading depends on no attribute, so it needs no probing. */
export function readData(): SvcData | null {
  try {
    const data = JSON.parse(Cookies.get(DATA)!); // no cookie, not JSON, or JSON null (at .click_id): null
    return data.click_id ? data : null;
  } catch {
    return null;
  }
}

/**
 * svc_data (JSON) and svc_ref (the click id, for the merchant's server), both for `maxAge`
 * seconds: the server counts them from the click, so the visitor's clock does not matter.
 */
export function writeData(jar: Jar, data: SvcData, maxAge: number): void {
  // js-cookie passes an attribute it does not know through as it is, and expects strings.
  const attributes = { 'max-age': String(maxAge) };
  jar.set(DATA, JSON.stringify(data), attributes);
  jar.set(REF, data.click_id, attributes);
}
