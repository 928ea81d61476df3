import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isPrivateAddress } from '../proxy-setup.js';

/**
 * Warns once when requests come through a proxy svc does not trust: they carry X-Forwarded-For,
 * and the address they come from is loopback or private (a proxy of the merchant's own) but not
 * trusted by SVC_TRUST_PROXY. Every visitor then counts as the proxy for rate limits and sign-in
 * throttles, and https is not seen, so cookies are not Secure
 * (ingest/docs/production.md#the-environment-file). Once: one line tells the fix, and a line per
 * request would flood the log. A public address sending X-Forwarded-For is any client's choice,
 * not a sign of a proxy, so it says nothing.
 */
export function untrustedProxyWarning(logger: Logger): RequestHandler {
  let warned = false;
  return (req, _res, next) => {
    if (!warned && req.headers['x-forwarded-for'] !== undefined) {
      const peer = req.socket.remoteAddress;
      const trusted = req.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
      if (peer && isPrivateAddress(peer, 0) && !trusted(peer, 0)) {
        warned = true;
        const proxy = peer.replace(/^::ffff:/, '');
        logger.warn(
          { proxy },
          `requests come through a proxy at ${proxy} that svc does not trust (they carry X-Forwarded-For): every visitor counts as ${proxy} for rate limits and cookies are not Secure; set SVC_TRUST_PROXY=${proxy}`,
        );
      }
    }
    next();
  };
}
