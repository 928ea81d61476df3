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
