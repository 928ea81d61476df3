import express from 'express';
import type { Db } from '../../db/database.js';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { jsonBody } from '../../http/json-body.js';
import { manyResponse } from '../../http/responses.js';
import { Click, ClickCreate, clickDocs, LinkNotFoundResponse } from './clicks.schema.js';
import { toClick } from './clicks.serializer.js';
import { ageClick, recordClick } from './clicks.service.js';

export function registerClickRoutes(api: ApiBuilder, { db, store, writeClick, config, secretGuards }: RouteDeps): void {
  api.route({
    tag: 'Clicks',
    security: 'secret',
    guards: secretGuards,
    method: 'post',
    path: '/v1/clicks',
    summary: 'Record a click',
    description: clickDocs.create,
    body: ClickCreate,
    status: 201,
    response: manyResponse(Click),
    errors: [404],
    errorBodies: { 404: LinkNotFoundResponse },
    handler: async ({ req, res, body }) => {
      const click = await recordClick(db, store, writeClick, authOf(res).organizationId, body, {
        userAgent: req.get('user-agent'),
        headerCountry: config.countryHeader ? req.get(config.countryHeader) : undefined,
      });
      return envelope.many(toClick(click));
    },
  });
}

/**
 * The browser tests' hooks into clicks (e2e/), mounted by createApp under /__test only when
 * SVC_TEST_HOOKS=1: outside /v1, without an API key, never in the OpenAPI document.
 *
 * `POST /clicks/:id/age {seconds}` makes the click that many seconds old (ageClick): 204, 404 for
 * an unknown click, 400 for a bad `seconds`.
 */
export function clickTestHooks(db: Db): express.Router {
  const router = express.Router();
  router.post('/clicks/:id/age', jsonBody, async (req: express.Request<{ id: string }>, res) => {
    await ageClick(db, req.params.id, req.body?.seconds);
    res.status(204).end();
  });
  return router;
}
