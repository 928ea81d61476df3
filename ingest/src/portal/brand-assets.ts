import type { Response, Router } from 'express';
import type { AppDeps } from '../deps.js';
import { logoToServe, logoVersionIs, themeCss, themeVersionIs } from '../resources/branding/branding.service.js';
import { programOf } from './portal-auth.js';

/**
 * A program's logo and its accent color's stylesheet, under its portal (`/p/<subdomain>/logo`,
 * `/p/<subdomain>/theme.css`; ingest/docs/partner-portal.md#the-programs-logo-and-accent-color).
 * Their URLs carry what they serve (`?v=`), so an answer to the current one is cached for a year;
 * any other `v` gets what is current, revalidated each time. Open to anyone, as the portal's
 * sign-in page is.
 */

const FOREVER = 'public, max-age=31536000, immutable';

const cachedIf = (res: Response, current: boolean) => res.set('Cache-Control', current ? FOREVER : 'no-cache');

export function registerBrandAssets(portal: Router, { db }: AppDeps): void {
  portal.get('/logo', async (req, res) => {
    const program = programOf(res);
    const logo = program.brand.logo ? await logoToServe(db, program.id) : undefined;
    if (!logo) {
      res.status(404).type('text').send('This program has no logo.');
      return;
    }
    cachedIf(res, logoVersionIs(req.query.v, logo));
    res.set({
      // The bytes were recognised as the stored type when uploaded; the browser must not guess
      // another, nor run anything should the image be opened on its own.
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
      // Partners' mail programs show it from their own origin (webmail loads it as an <img>).
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    res.type(logo.type).send(Buffer.from(logo.bytes));
  });

  portal.get('/theme.css', (req, res) => {
    const accent = programOf(res).brand.accentColor;
    if (!accent) {
      res.status(404).type('text').send('This program has no accent color.');
      return;
    }
    cachedIf(res, themeVersionIs(req.query.v, accent));
    res.type('text/css').send(themeCss(accent));
  });
}
