import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse } from '../../http/responses.js';
import { ApiKey, ApiKeyCreate, ApiKeyListQuery, ApiKeyWithSecret, apiKeyDocs } from './api-keys.schema.js';
import { toApiKey } from './api-keys.serializer.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.js';

export function registerApiKeyRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const common = { tag: 'API keys', security: 'secret', guards: secretGuards } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create a secret API key',
    description: apiKeyDocs.create,
    body: ApiKeyCreate,
    carriesSecret: true,
    status: 201,
    response: manyResponse(ApiKeyWithSecret),
    handler: async ({ res, body }) => {
      const { key, secret } = await createApiKey(db, authOf(res).organizationId, body.name ?? null, store);
      return envelope.many({ ...toApiKey(key), secret });
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/api-keys',
    summary: 'List active API keys',
    description: apiKeyDocs.list,
    query: ApiKeyListQuery,
    status: 200,
    response: listResponse(ApiKey),
    handler: async ({ res, query }) => envelope.list(await listApiKeys(db, authOf(res).organizationId, query), (k) => k),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/api-keys/:id',
    summary: 'Revoke an API key',
    description: apiKeyDocs.revoke,
    status: 200,
    response: deletedResponse,
    errors: [404],
    handler: async ({ res, params }) => {
      await revokeApiKey(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
