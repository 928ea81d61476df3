import type { Request } from 'express';

/** The label of a request no route answered (404s, and what a mounted static handler serves). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route template a request matched, e.g. `/v1/partners/:id` or `/p/:subdomain/sign-in`,
 * never the path it was sent to: ids and tokens must not become label values (each would be a
 * series of its own). A route inside a mounted router is matched relative to its mount point,
 * whose path (`req.baseUrl`) holds the values of the mount's own parameters: each segment that is
 * the value of one of the request's parameters is named back as that parameter (the routers
 * whose mount path has parameters merge them, so `req.params` holds them).
 */
export function routeLabel(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (!route) return UNMATCHED_ROUTE;
  const path = Array.isArray(route.path) ? route.path.map(String).join(',') : String(route.path);
  if (!req.baseUrl) return path;
  const names = new Map(Object.entries(req.params ?? {}).map(([name, value]) => [String(value), name]));
  const base = req.baseUrl
    .split('/')
    .map((segment) => {
      const name = names.get(safeDecode(segment));
      return name === undefined ? segment : `:${name}`;
    })
    .join('/');
  return base + (path === '/' ? '' : path);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
