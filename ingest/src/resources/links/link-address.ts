import type { LinkRow, ProgramRow } from '../../db/schema.js';

/**
 * A partner's link as an address on the merchant's site (ingest/docs/partner-portal.md#sharing-a-link):
 * the one place that builds it, for the dashboard, the portal and the e-mails. Pure, so that the
 * e-mail builders can use it (the links service imports the partners service, which imports them).
 */

export type LinkValue = Pick<LinkRow, 'param' | 'value'>;

/** The program's website address (`website_url`) as a URL; null when it has none, or one that is no web address. */
export function programSite(websiteUrl: string | null): URL | null {
  if (!websiteUrl) return null;
  try {
    const url = new URL(websiteUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The page's address with the link's parameter set: the rest of its query, in its order and encoding, and its #hash kept. */
export function withLinkParam(page: URL, link: LinkValue): string {
  const url = new URL(page.href);
  const keyOf = (pair: string) => {
    const key = pair.split('=', 1)[0].replace(/\+/g, ' ');
    try {
      return decodeURIComponent(key);
    } catch {
      return key;
    }
  };
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && keyOf(pair) !== link.param);
  // Link values are unreserved characters (links.schema.ts): nothing to encode.
  url.search = `?${[...kept, `${link.param}=${link.value}`].join('&')}`;
  return url.href;
}

/**
 * The partner's link to share: the program's website address with the link's parameter (the
 * link's own `param`, one of the program's `url_params`) and value, e.g. `https://acme.com/?ref=emma`.
 * Null when the program has no website address: `?ref=emma` alone is nothing anyone can share.
 */
export function shareableLink(program: Pick<ProgramRow, 'website_url'>, link: LinkValue): string | null {
  const site = programSite(program.website_url);
  return site ? withLinkParam(site, link) : null;
}
