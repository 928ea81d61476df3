import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (ingest/docs/webhooks.md): public addresses only, so that an
 * endpoint URL cannot make svc reach its own host, the cloud's metadata service or the private
 * network behind it (server-side request forgery). `SVC_WEBHOOKS_ALLOW_PRIVATE=true` lifts this
 * for local development and tests, and also allows plain http.
 *
 * A URL is checked twice: its form when an endpoint is saved (`endpointUrlProblem`), and the
 * addresses its host resolves to at every connection (`publicOnlyLookup`), since DNS can point a
 * name anywhere after it was saved.
 */

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Whether an address is an ordinary public one: not loopback, private, link-local, multicast, reserved… */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  // IPv6 beyond the global unicast block (such as the deprecated IPv4-compatible ::127.0.0.1) is refused too.
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

/** Host names that always mean this machine (RFC 6761), refused before any lookup; `localhost.` is `localhost`. */
const isLocalName = (host: string) => {
  const name = host.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
};

/** Why an endpoint URL cannot be used, or undefined when it can. */
export function endpointUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return 'must be an https:// URL (plain http only with SVC_WEBHOOKS_ALLOW_PRIVATE=true, for local development)';
  }
  if (url.username || url.password) return 'must not carry credentials: receivers verify the webhook-signature header instead';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLocalName(host)) return `must not point at this machine (${host})`;
  if (net.isIP(host) && !isPublicAddress(host)) return `must not point at a private, loopback or reserved address (${host})`;
  return undefined;
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/**
 * A `dns.lookup` for outgoing connections that refuses a host any of whose addresses is not
 * public, so a name that resolves to both cannot slip through on the second one.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) {
      return callback(new PrivateAddressError(`${hostname} resolves to ${refused.address}, which is not a public address`), '', 4);
    }
    if (options.all) return (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};
