import proxyAddr from 'proxy-addr';

/**
 * What svc needs to know about the proxy in front of it, checked at start-up (config.ts) and
 * watched on requests (http/untrusted-proxy-warning.ts). svc serves plain http: behind TLS there
 * is always a proxy, and only SVC_TRUST_PROXY lets svc read the visitor's address
 * (X-Forwarded-For) and the scheme (X-Forwarded-Proto) from it (ingest/docs/production.md#the-environment-file).
 */

/** What Express's `trust proxy` accepts from SVC_TRUST_PROXY, as config.ts hands it over. */
export type TrustProxy = boolean | number | string;

export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * A list Express can compile (addresses, CIDR ranges, loopback/linklocal/uniquelocal): checked
 * here, since Express would only throw when the app is built, after the migrations ran.
 */
export function isTrustProxySetting(value: string): boolean {
  const parsed = parseTrustProxy(value);
  if (typeof parsed !== 'string') return true;
  try {
    proxyAddr.compile(parsed.split(',').map((part) => part.trim()));
    return true;
  } catch {
    return false;
  }
}

/**
 * The one proxy set-up that cannot work in production, in one line, or undefined. An https public
 * address means a proxy terminates TLS; without trusting it, every visitor is the proxy's address
 * (one shared script rate limit and sign-in throttle for all, which a single client can use up)
 * and svc cannot tell that browsers reach it over https, so session cookies lose Secure. Outside
 * production (a trial behind a tunnel) it is only warned about, on the first such request.
 */
export function unworkableProxySetup(env: { publicUrl?: string; trustProxy: TrustProxy; production: boolean }): string | undefined {
  if (!env.production || env.trustProxy !== false || !env.publicUrl?.startsWith('https:')) return undefined;
  return 'SVC_PUBLIC_URL is https, so a proxy terminates TLS in front of svc: set SVC_TRUST_PROXY to its address (e.g. 127.0.0.1), else every visitor shares its rate limits and cookies are not Secure (NODE_ENV is production)';
}

/** Addresses a proxy of the merchant's own would connect from: loopback, link-local and private ranges. */
export const isPrivateAddress = proxyAddr.compile(['loopback', 'linklocal', 'uniquelocal']);
