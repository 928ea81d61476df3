import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { Group, GroupCreate, GroupListQuery, GroupUpdate, groupDocs } from './groups.schema.js';
import { toGroup } from './groups.serializer.js';
import { createGroup, deleteGroup, listGroups, requireGroup, updateGroup } from './groups.service.js';

export function registerGroupRoutes(api: ApiBuilder, { db, secretGuards }: RouteDeps): void {
  const common = { tag: 'Groups', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'get',
    path: '/v1/groups',
    summary: 'List the groups of a program',
    description: groupDocs.list,
    query: GroupListQuery,
    status: 200,
    response: listResponse(Group),
    handler: async ({ res, query }) => envelope.list(await listGroups(db, authOf(res).organizationId, query), (g) => g),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/groups',
    summary: 'Create a group',
    description: groupDocs.create,
    body: GroupCreate,
    status: 201,
    response: manyResponse(Group),
    handler: async ({ res, body }) => envelope.many(toGroup(await createGroup(db, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/groups/:id',
    summary: 'Retrieve a group',
    description: groupDocs.retrieve,
    query: z.strictObject({}),
    status: 200,
    response: oneResponse(Group),
    handler: async ({ res, params }) => envelope.one(toGroup(await requireGroup(db, authOf(res).organizationId, params.id))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/groups/:id',
    summary: 'Update a group',
    description: groupDocs.update,
    body: GroupUpdate,
    status: 200,
    response: manyResponse(Group),
    handler: async ({ res, params, body }) => envelope.many(toGroup(await updateGroup(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/groups/:id',
    summary: 'Delete a group',
    description: groupDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteGroup(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
