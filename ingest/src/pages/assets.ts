import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RequestHandler } from 'express';
import { ROOT } from '../paths.js';

/**
 * The static files of the dashboard and the partner portal, read once at start-up and served from memory (gzip-compressed when the browser takes it) under a URL that
 * carries their hash (cached for a year; a new build changes the URL). Its own stylesheet and
 * script, and uPlot (the chart library) straight from node_modules: no CDN, no build step.
 */
const here = path.join(ROOT, 'ingest/src/pages');
const uplot = path.dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));

const FILES = {
  'dashboard.css': path.join(here, 'assets', 'dashboard.css'),
  'dashboard.js': path.join(here, 'assets', 'dashboard.js'),
  'portal.css': path.join(here, 'assets', 'portal.css'),
  'uplot.js': path.join(uplot, 'uPlot.iife.min.js'),
  'uplot.css': path.join(uplot, 'uPlot.min.css'),
} as const;
export type AssetName = keyof typeof FILES;

interface Asset {
  body: Buffer;
  gzip: Buffer;
  type: string;
  url: string;
}

const assets = new Map<string, Asset>(
  Object.entries(FILES).map(([name, file]) => {
    const body = fs.readFileSync(file);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    return [
      name,
      {
        body,
        gzip: gzipSync(body, { level: 9 }),
        type: name.endsWith('.css') ? 'text/css' : 'text/javascript',
        url: `/dashboard/assets/${name}?v=${hash}`,
      },
    ];
  }),
);

export const assetUrl = (name: AssetName): string => assets.get(name)!.url;

export const serveAsset: RequestHandler = (req, res, next) => {
  const asset = assets.get(req.params.name as string);
  if (!asset) return next();
  res.set('Cache-Control', req.query.v ? 'public, max-age=31536000, immutable' : 'no-cache');
  res.set('Vary', 'Accept-Encoding');
  if (req.acceptsEncodings('gzip', 'identity') === 'gzip') res.set('Content-Encoding', 'gzip').type(asset.type).send(asset.gzip);
  else res.type(asset.type).send(asset.body);
};
