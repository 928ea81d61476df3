import { sql } from 'kysely';
import type { LinkRow } from '../../db/schema.js';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse } from '../../http/responses.js';
import { type PartnerProgramExpand, presentWithPartnerAndProgram } from '../expand-partner-program.js';
import { requireProgram } from '../programs/programs.service.js';
import { selectLinks } from './links.repository.js';
import { Link, LinkCreate, LinkListQuery, LinkRetrieveQuery, LinkUpdate } from './links.schema.js';
import { toLink } from './links.serializer.js';
import { createLink, deleteLink, requireLink, updateLink } from './links.service.js';

export function registerLinkRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const present = async (link: LinkRow, expand?: PartnerProgramExpand[]) =>
    (await presentWithPartnerAndProgram(db, [link], expand, toLink))[0];
  const common = { tag: 'Links', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/links',
    summary: 'Create a link',
    description:
      "`param` must be one of the program's url_params; (param, value) is unique in the program, the value compared case-insensitively (409 otherwise).",
    body: LinkCreate,
    status: 201,
    response: manyResponse(Link),
    errors: [404, 409],
    handler: async ({ res, body }) => envelope.many(await present(await createLink(db, store, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/links',
    summary: 'List the links of a program',
    query: LinkListQuery,
    status: 200,
    response: listResponse(Link),
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectLinks(db, organizationId).where('program_id', '=', program.id);
      if (query.partner_id) base = base.where('partner_id', '=', query.partner_id);
      if (query.param) base = base.where('param', '=', query.param);
      if (query.value) base = base.where(sql`lower(value)`, '=', query.value.toLowerCase());
      const page = await paginate(base, query, { createdAt: 'created_at', id: 'id' });
      return envelope.list({ ...page, rows: await presentWithPartnerAndProgram(db, page.rows, query.expand, toLink) }, (l) => l);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/links/:id',
    summary: 'Retrieve a link',
    description: 'As the spec says, `data` is an array holding the link.',
    query: LinkRetrieveQuery,
    status: 200,
    response: manyResponse(Link),
    handler: async ({ res, params, query }) =>
      envelope.many(await present(await requireLink(db, authOf(res).organizationId, params.id), query.expand)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/links/:id',
    summary: 'Update a link',
    description: 'The old (param, value) stops resolving at once, on every process.',
    body: LinkUpdate,
    status: 200,
    response: manyResponse(Link),
    errors: [404, 409],
    handler: async ({ res, params, body }) =>
      envelope.many(await present(await updateLink(db, store, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/links/:id',
    summary: 'Delete a link',
    description: 'The link stops resolving at once; clicks already recorded keep their link_id.',
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteLink(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
