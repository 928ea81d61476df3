import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express from 'express';
import helmet from 'helmet';

/**
 * GET /docs: the API reference, Scalar's viewer rendering /v1/openapi.json, entirely from this
 * server. Scalar's standalone bundle is served from node_modules at /docs/scalar.js (no CDN), and
 * the page turns off everything in it that would call another host.
 */

/** @scalar/api-reference's self-contained browser build (Vue, its styles and all, in one file). */
export const SCALAR_BUNDLE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

/** The bundle's package version: part of its URL, so that it can be cached for good. */
const SCALAR_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(path.dirname(SCALAR_BUNDLE), '..', '..', 'package.json'), 'utf8'),
).version;

export const SCALAR_SCRIPT_URL = `/docs/scalar.js?v=${SCALAR_VERSION}`;

/**
 * Scalar's configuration (https://scalar.com/products/api-references/configuration), with every
 * feature that reaches another host off: its default fonts (fonts.scalar.com; the system's fonts
 * instead), the developer toolbar shown on localhost (sharing a document uploads it to
 * api.scalar.com), the "Ask AI" agent (api.scalar.com), the "Open API Client" button (opens
 * client.scalar.com with this document's URL), telemetry. No proxyUrl: the in-page client sends
 * its test requests straight to this origin. The page's CSP would block the requests anyway.
 */
const SCALAR_CONFIGURATION = {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  hideClientButton: true,
  telemetry: false,
};

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Scalar's HTML API: it reads its configuration from the `#api-reference` element and mounts
 * itself just before it. Configured by an attribute, so the page has no inline script.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>svc API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <script id="api-reference" type="application/json" data-configuration="${attribute(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
    <script src="${attribute(SCALAR_SCRIPT_URL)}"></script>
  </body>
</html>
`;

/**
 * The page's Content-Security-Policy, replacing the API's `default-src 'none'`
 * (security-headers.ts) on /docs:
 * - script-src 'self': the bundle, from here. No 'unsafe-eval' (Scalar works without it) and no
 *   'unsafe-inline' (the page has no inline script).
 * - style-src 'self' 'unsafe-inline': the bundle injects its stylesheet as <style> elements and
 *   sets style attributes at run time, so neither a hash nor a nonce can name them.
 * - img-src 'self' data:: icons and images inlined as data: URLs.
 * - connect-src 'self': /v1/openapi.json, and the API client's requests to this API.
 * - frame-ancestors 'none' (with X-Frame-Options DENY from security-headers.ts), base-uri and
 *   form-action 'none', everything else 'none' (default-src).
 */
export const DOCS_CSP = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

/** GET /docs and GET /docs/scalar.js; mounted at /docs. */
export function apiDocs(): express.Router {
  const router = express.Router();
  router.get('/', DOCS_CSP, (_req, res) => {
    res.set('Cache-Control', 'no-cache');
    res.type('html').send(PAGE);
  });
  router.get('/scalar.js', (_req, res, next) => {
    // Immutable: a new Scalar version comes with a new ?v= in the page.
    res.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('text/javascript; charset=utf-8');
    res.sendFile(SCALAR_BUNDLE, { etag: true, lastModified: true, cacheControl: false }, (err) => err && next(err));
  });
  return router;
}
