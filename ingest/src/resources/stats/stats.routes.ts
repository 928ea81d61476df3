import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { oneResponse } from '../../http/responses.js';
import { Stats, StatsQuery, statsDocs } from './stats.schema.js';
import { programStats } from './stats.service.js';

export function registerStatsRoutes(api: ApiBuilder, { db, secretGuards }: RouteDeps): void {
  api.route({
    tag: 'Programs',
    security: 'secret',
    guards: secretGuards,
    errors: [404],
    method: 'get',
    path: '/v1/programs/:id/stats',
    summary: "A program's figures per day",
    description: statsDocs.stats,
    query: StatsQuery,
    status: 200,
    response: oneResponse(Stats),
    handler: async ({ res, params, query }) => envelope.one(await programStats(db, authOf(res).organizationId, params.id, query)),
  });
}
