/** The script tag's settings (DESIGN.md section 8). */
export interface Config {
  key: string;
  /** Origin (and optional path) of the API, without a trailing slash. */
  api: string;
  params: string[];
  domain?: string;
  consent: boolean;
  stripe: boolean;
}

/** Reads the tag's data-* attributes; null without a public key. */
export function readConfig(tag: HTMLScriptElement | null | undefined): Config | null {
  const d = tag && tag.dataset;
  if (!d || !d.key) return null;
  return {
    key: d.key,
    api: (d.api || new URL(tag!.src).origin).replace(/\/+$/, ''),
    params: (d.params || 'ref,via').trim().split(/\s*,\s*/),
    domain: d.cookieDomain,
    consent: d.consent == 'required',
    stripe: d.stripe != null,
  };
}

/** The tag that loaded this script: currentScript while it runs (also async, defer and inserted tags). */
export function findTag(doc: Document): HTMLScriptElement | null {
  return (doc.currentScript as HTMLScriptElement | null) || doc.querySelector<HTMLScriptElement>('script[data-key]');
}
