import fs from 'node:fs';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';
import { ApiError } from '../../http/errors.js';
import { ROOT } from '../../paths.js';

/** The tracking script as `npm run build` writes it (rollup.config.mjs), with svc.js.gz, svc.js.br and svc.json (written last) beside it. */
export const SCRIPT_FILE = path.join(ROOT, 'script/dist/svc.js');

/**
 * The stable URL: what the script tag points at (README.md#the-script-tag), picked up by browsers
 * within minutes of an upgrade.
 */
const STABLE_CACHE = 'public, max-age=300, stale-while-revalidate=86400';
/** The versioned URL names one build's content, so it never changes: cached for a year. */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
const VERSIONED_PATH = /^\/svc\.([0-9a-f]{12})\.js$/;

type Encoding = 'br' | 'gzip' | 'identity';

interface BuiltScript {
  /** svc.json's mtime: the build writes it last, so a new one means every file is new. */
  mtimeMs: number;
  bodies: Record<Encoding, Buffer>;
  /** This build's versioned file name (svc.<12 hex>.js), from svc.json. */
  versioned: string;
  etag: string;
}

/**
 * The built script, its precompressed copies and its manifest, read once and again whenever a
 * build replaces them (one stat per request; the files are a few kilobytes). Undefined until
 * `npm run build` has written them all.
 */
function scriptLoader(file: string): () => BuiltScript | undefined {
  const manifestFile = file.replace(/\.js$/, '.json');
  let cached: BuiltScript | undefined;
  return () => {
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(manifestFile).mtimeMs;
    } catch {
      cached = undefined;
      return cached;
    }
    if (cached?.mtimeMs === mtimeMs) return cached;
    const { versioned } = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { versioned: string };
    const hash = VERSIONED_PATH.exec(`/${versioned}`)?.[1];
    if (!hash) throw new Error(`${manifestFile} names no versioned file: run npm run build`);
    const bodies = { identity: fs.readFileSync(file), gzip: fs.readFileSync(`${file}.gz`), br: fs.readFileSync(`${file}.br`) };
    cached = { mtimeMs, bodies, versioned, etag: hash };
    return cached;
  };
}

const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];

/** negotiator 1.x takes the server's preference for ties; its type declarations (0.6) predate it. */
type PreferringNegotiator = { encodings(available: string[], options: { preferred: string[] }): string[] };

/**
 * What the request's Accept-Encoding ranks highest, brotli first among equals (Chromium sends
 * `gzip, deflate, br, zstd`, all of the same weight, and brotli is the smaller).
 */
function encodingFor(req: Request): Encoding {
  const [best] = (new Negotiator(req) as unknown as PreferringNegotiator).encodings(ENCODINGS, { preferred: ENCODINGS });
  return ENCODINGS.includes(best as Encoding) ? (best as Encoding) : 'identity';
}

function send(req: Request, res: Response, script: BuiltScript, cacheControl: string): void {
  const encoding = encodingFor(req);
  const body = script.bodies[encoding];
  res.set({
    'Cache-Control': cacheControl,
    'Access-Control-Allow-Origin': '*',
    Vary: 'Accept-Encoding',
    // One ETag per encoding: a cache must not answer a gzip request with a brotli 304.
    ETag: `"${script.etag}${encoding === 'identity' ? '' : `-${encoding}`}"`,
  });
  res.type('text/javascript');
  if (encoding !== 'identity') res.set('Content-Encoding', encoding);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.set('Content-Length', String(body.length));
  res.status(200).end(req.method === 'HEAD' ? undefined : body);
}

/**
 * GET /svc.js and GET /svc.<hash>.js, loadable from any origin (CORS here;
 * Cross-Origin-Resource-Policy cross-origin comes with the security headers,
 * http/security-headers.ts, which decide it for every public path), compressed with brotli or gzip
 * when the browser accepts it (README.md#the-script-tag):
 *
 * - /svc.js: cacheable for five minutes, then revalidated by ETag (served stale meanwhile for a day).
 * - /svc.<hash>.js: this build, immutable for a year; pin it with its integrity hash (svc.json).
 *   Another build's name (the site pinned it before an upgrade) is redirected to this build's, so
 *   the tag keeps working (without an integrity attribute, which the new content would fail).
 */
export function serveScript(file: string = SCRIPT_FILE): RequestHandler {
  const load = scriptLoader(file);
  return (req, res) => {
    const script = load();
    if (!script) throw new ApiError('not_found_error', 'svc.js has not been built: run npm run build');
    const version = VERSIONED_PATH.exec(req.path)?.[1];
    if (version === undefined) return send(req, res, script, STABLE_CACHE);
    if (version === script.etag) return send(req, res, script, VERSIONED_CACHE);
    res.set({ 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' });
    // Relative, so that it also works under a proxy prefix (/svc/svc.<hash>.js).
    res.redirect(302, script.versioned);
  };
}

/** The paths serveScript answers: the stable one and the versioned one. */
export const SCRIPT_PATHS = ['/svc.js', VERSIONED_PATH];

/** Whether a request path is one of SCRIPT_PATHS, matched as Express routes them (the stable one case-insensitively, with an optional trailing slash). */
export const isScriptPath = (path: string): boolean => /^\/svc\.js\/?$/i.test(path) || VERSIONED_PATH.test(path);
