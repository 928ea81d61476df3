/**
 * The script tag's settings (README.md#the-script-tag), as a tuple that index.ts destructures:
 * `api` is the origin (and optional path) of the API without a trailing slash, `domain` the
 * data-cookie-domain (undefined: probe for it).
 */
export type Config = [key: string, api: string, params: string[], domain: string | undefined, consent: boolean, stripe: boolean];

/** Reads the tag's data-* attributes; nothing without a public key. */
export function readConfig(tag: HTMLScriptElement | null | undefined): Config | undefined {
  const d = tag?.dataset;
  if (d?.key)
    return [
      d.key,
      (d.api || new URL(tag!.src).origin).replace(/\/+$/, ''),
      // Names are separated by commas and/or spaces; none is empty.
      (d.params || 'ref,via').match(/[^\s,]+/g) || [],
      d.cookieDomain,
      d.consent == 'required',
      d.stripe != null,
    ];
}

/**
 * The tag that loaded this script: currentScript while it runs (also async, defer and inserted
 * tags). Without it (the code was evaluated by another script), the first tag with a data-key
 * whose src names svc.js: another vendor's `<script data-key>` is not ours.
 */
export function findTag(): HTMLScriptElement | null {
  return (
    (document.currentScript as HTMLScriptElement | null) || document.querySelector<HTMLScriptElement>('script[data-key][src*="svc.js"]')
  );
}
