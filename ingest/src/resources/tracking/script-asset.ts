import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import { ApiError } from '../../http/errors.js';

/** The tracking script as `npm run build` writes it (rollup.config.mjs). */
export const SCRIPT_FILE = fileURLToPath(new URL('../../../../script/dist/svc.js', import.meta.url));

/**
 * GET /svc.js: cacheable for five minutes, then revalidated by ETag (served stale meanwhile for a
 * day), and loadable from any origin (CORS here; Cross-Origin-Resource-Policy cross-origin comes
 * with the security headers, http/security-headers.ts, which decide it for every public path).
 */
export function serveScript(file: string = SCRIPT_FILE): RequestHandler {
  return (_req, res, next) => {
    if (!fs.existsSync(file)) throw new ApiError('not_found_error', 'svc.js has not been built: run npm run build');
    res.set({
      'Cache-Control': 'public, max-age=300, stale-while-revalidate=86400',
      'Access-Control-Allow-Origin': '*',
    });
    res.type('text/javascript');
    res.sendFile(file, { etag: true, lastModified: true, cacheControl: false }, (err) => err && next(err));
  };
}

/** GET /svc.js as an app of its own, so that it keeps ETags while the API goes without. */
export function scriptAsset(file: string = SCRIPT_FILE): express.Express {
  const asset = express();
  asset.disable('x-powered-by');
  asset.set('etag', true);
  asset.get('/svc.js', serveScript(file));
  return asset;
}
