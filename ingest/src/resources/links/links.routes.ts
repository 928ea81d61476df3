import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse } from '../../http/responses.js';
import { Link, LinkCreate, LinkListQuery, LinkRetrieveQuery, LinkUpdate, linkDocs } from './links.schema.js';
import { presentLink } from './links.serializer.js';
import { createLink, deleteLink, listLinks, requireLink, updateLink } from './links.service.js';

export function registerLinkRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const common = { tag: 'Links', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/links',
    summary: 'Create a link',
    description: linkDocs.create,
    body: LinkCreate,
    status: 201,
    response: manyResponse(Link),
    errors: [404, 409],
    handler: async ({ res, body }) => envelope.many(await presentLink(db, await createLink(db, store, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/links',
    summary: 'List the links of a program',
    description: linkDocs.list,
    query: LinkListQuery,
    status: 200,
    response: listResponse(Link),
    handler: async ({ res, query }) => envelope.list(await listLinks(db, authOf(res).organizationId, query), (l) => l),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/links/:id',
    summary: 'Retrieve a link',
    description: linkDocs.retrieve,
    query: LinkRetrieveQuery,
    status: 200,
    response: manyResponse(Link),
    handler: async ({ res, params, query }) =>
      envelope.many(await presentLink(db, await requireLink(db, authOf(res).organizationId, params.id), query.expand)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/links/:id',
    summary: 'Update a link',
    description: linkDocs.update,
    body: LinkUpdate,
    status: 200,
    response: manyResponse(Link),
    errors: [404, 409],
    handler: async ({ res, params, body }) =>
      envelope.many(await presentLink(db, await updateLink(db, store, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/links/:id',
    summary: 'Delete a link',
    description: linkDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteLink(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
