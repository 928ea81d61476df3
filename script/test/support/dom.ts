/** Helpers for the script's tests on happy-dom (the vitest environment of script/vitest.config.ts). */

/** Moves the happy-dom window to `url` (origin included), as a navigation would. */
export function setURL(url: string): void {
  (window as any).happyDOM.setURL(url);
}

function cookieDescriptor(): PropertyDescriptor {
  for (let proto = Object.getPrototypeOf(document); proto; proto = Object.getPrototypeOf(proto)) {
    const desc = Object.getOwnPropertyDescriptor(proto, 'cookie');
    if (desc) return desc;
  }
  throw new Error('document.cookie has no accessor');
}

/** Records every raw string assigned to document.cookie (still passed on to happy-dom's jar). */
export function spyCookieWrites(): { writes: string[]; restore(): void } {
  const desc = cookieDescriptor();
  const writes: string[] = [];
  Object.defineProperty(document, 'cookie', {
    configurable: true,
    get() {
      return desc.get!.call(this);
    },
    set(value: string) {
      writes.push(value);
      desc.set!.call(this, value);
    },
  });
  return { writes, restore: () => void delete (document as any).cookie };
}

/** The cookies visible to the page, by name (values as stored, not decoded). */
export function cookieMap(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of document.cookie ? document.cookie.split('; ') : []) {
    const i = pair.indexOf('=');
    out[i < 0 ? pair : pair.slice(0, i)] = i < 0 ? '' : pair.slice(i + 1);
  }
  return out;
}

/** Expires every cookie the page can see, host-only and on each parent domain. */
export function clearCookies(): void {
  const labels = location.hostname.split('.');
  const domains = [''];
  for (let i = 0; i < labels.length; i++) domains.push(`;domain=${labels.slice(i).join('.')}`);
  for (let round = 0; round < 3 && document.cookie; round++) {
    for (const name of Object.keys(cookieMap())) {
      for (const domain of domains) document.cookie = `${name}=;path=/;expires=Thu, 01 Jan 1970 00:00:00 GMT${domain}`;
    }
  }
}

/** Parses a raw Set-Cookie-like string: name, value and the attributes (lower-cased keys). */
export function parseCookieString(raw: string): { name: string; value: string; attrs: Record<string, string | true> } {
  const [first, ...rest] = raw.split(/;\s*/);
  const i = first.indexOf('=');
  const attrs: Record<string, string | true> = {};
  for (const part of rest) {
    const j = part.indexOf('=');
    if (j < 0) attrs[part.toLowerCase()] = true;
    else attrs[part.slice(0, j).toLowerCase()] = part.slice(j + 1);
  }
  return { name: first.slice(0, i), value: first.slice(i + 1), attrs };
}
