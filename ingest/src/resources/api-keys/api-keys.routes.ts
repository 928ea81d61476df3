import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse } from '../../http/responses.js';
import { ApiKey, ApiKeyCreate, ApiKeyListQuery, ApiKeyWithSecret } from './api-keys.schema.js';
import { createApiKey, revokeApiKey, selectActiveKeys, toApiKey } from './api-keys.service.js';

export function registerApiKeyRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const common = { tag: 'API keys', security: 'secret', guards: secretGuards } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create a secret API key',
    description:
      'The secret is in this response only; svc keeps just its SHA-256 hash. The response is `Cache-Control: no-store`, and an `Idempotency-Key` replay of it answers without `secret`.',
    body: ApiKeyCreate,
    carriesSecret: true,
    status: 201,
    response: manyResponse(ApiKeyWithSecret),
    handler: async ({ res, body }) => {
      const { key, secret } = await createApiKey(db, authOf(res).organizationId, body.name ?? null);
      return envelope.many({ ...toApiKey(key), secret });
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/api-keys',
    summary: 'List active API keys',
    query: ApiKeyListQuery,
    status: 200,
    response: listResponse(ApiKey),
    handler: async ({ res, query }) =>
      envelope.list(
        await paginate(selectActiveKeys(db, authOf(res).organizationId), query, { createdAt: 'created_at', id: 'id' }),
        toApiKey,
      ),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/api-keys/:id',
    summary: 'Revoke an API key',
    description: 'Takes effect at once. The last active key of the organization cannot be revoked.',
    status: 200,
    response: deletedResponse,
    errors: [404],
    handler: async ({ res, params }) => {
      await revokeApiKey(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
