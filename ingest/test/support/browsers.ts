/**
 * User-Agents of two real browsers, for tests that need two visitors told apart: a fingerprint is
 * the client address and the User-Agent (ingest/docs/risk.md), and every test request comes from
 * 127.0.0.1.
 */
export const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const SAFARI_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
