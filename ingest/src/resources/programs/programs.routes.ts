import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { Program, ProgramCreate, ProgramListQuery, ProgramUpdate, programDocs } from './programs.schema.js';
import { toProgram } from './programs.serializer.js';
import { createProgram, listPrograms, requireProgram, updateProgram } from './programs.service.js';

export function registerProgramRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const common = { tag: 'Programs', security: 'secret', guards: secretGuards } as const;

  api.route({
    ...common,
    method: 'get',
    path: '/v1/programs',
    summary: 'List programs',
    description: programDocs.list,
    query: ProgramListQuery,
    status: 200,
    response: listResponse(Program),
    handler: async ({ res, query }) => envelope.list(await listPrograms(db, authOf(res).organizationId, query), (p) => p),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/programs',
    summary: 'Create a program',
    description: programDocs.create,
    body: ProgramCreate,
    status: 201,
    response: manyResponse(Program),
    errors: [409],
    handler: async ({ res, body }) => envelope.many(toProgram(await createProgram(db, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/programs/:id',
    summary: 'Retrieve a program',
    description: programDocs.retrieve,
    query: z.strictObject({}),
    status: 200,
    response: oneResponse(Program),
    errors: [404],
    handler: async ({ res, params }) => envelope.one(toProgram(await requireProgram(db, authOf(res).organizationId, params.id))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/programs/:id',
    summary: 'Update a program',
    description: programDocs.update,
    body: ProgramUpdate,
    status: 200,
    response: manyResponse(Program),
    errors: [404, 409],
    handler: async ({ res, params, body }) =>
      envelope.many(toProgram(await updateProgram(db, store, authOf(res).organizationId, params.id, body))),
  });
}
