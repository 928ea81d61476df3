import type { Response } from 'express';
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';

/**
 * Dashboard pages are rendered on the server with Preact's JSX (escaped by construction) and
 * work without JavaScript; dashboard.js only adds copy buttons, the chart and a few conveniences.
 */
export function sendPage(res: Response, page: VNode, status = 200): void {
  res
    .status(status)
    .type('html')
    .set('Cache-Control', 'no-store')
    .send(`<!doctype html>${render(page)}`);
}

export type Children = ComponentChildren;

/**
 * The Content-Security-Policy of every page of the dashboard and the partner portal: everything
 * from this origin only, no inline script or style; `frameAncestors` says who may frame the page.
 */
export const pagePolicy = (frameAncestors: string[]) => ({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors,
  },
});
