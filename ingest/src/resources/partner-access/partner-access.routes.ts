import express from 'express';
import type { Db } from '../../db/database.js';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { notFound } from '../../http/errors.js';
import { manyResponse } from '../../http/responses.js';
import { expirePartnerAccess } from './partner-access.repository.js';
import { EmbedToken, EmbedTokenCreate, embedTokenDocs } from './partner-access.schema.js';
import { createEmbedToken } from './partner-access.service.js';

export function registerPartnerAccessRoutes(api: ApiBuilder, { db, config, secretGuards }: RouteDeps): void {
  api.route({
    tag: 'Partners',
    security: 'secret',
    guards: secretGuards,
    errors: [404],
    method: 'post',
    path: '/v1/partners/:id/embed-tokens',
    summary: "A token that opens the partner's portal in an iframe",
    description: embedTokenDocs.create,
    body: EmbedTokenCreate,
    status: 201,
    carriesSecret: true,
    response: manyResponse(EmbedToken),
    handler: async ({ res, params, body }) =>
      envelope.many(await createEmbedToken(db, authOf(res).organizationId, params.id, body, config.publicUrl)),
  });
}

/**
 * The browser tests' hook into the portal (e2e/), mounted under /__test only when
 * SVC_TEST_HOOKS=1: `POST /partners/:id/expire-access` makes every sign-in link and session of
 * the partner expired (204; 404 for an unknown partner), to see expiry without waiting for it.
 */
export function partnerAccessTestHooks(db: Db): express.Router {
  const router = express.Router();
  router.post('/partners/:id/expire-access', async (req: express.Request<{ id: string }>, res) => {
    if (!(await expirePartnerAccess(db, req.params.id))) throw notFound('partner', req.params.id);
    res.status(204).end();
  });
  return router;
}
