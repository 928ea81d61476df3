import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { RiskEvent, RiskEventListQuery, RiskResolve, riskDocs } from './risk.schema.js';
import {
  changeProgramRules,
  listRiskEvents,
  presentRiskEvents,
  programRules,
  resolveRiskEvent,
  retrieveRiskEvent,
} from './risk.service.js';
import { RiskRuleChanges, RiskRuleSettings } from './risk-rules.js';

/** The merchant's review of risk events, and each program's rules (ingest/docs/risk.md). */
export function registerRiskRoutes(api: ApiBuilder, { db, secretGuards, mailer }: RouteDeps): void {
  const common = { tag: 'Risk', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'get',
    path: '/v1/risk-events',
    summary: 'List risk events',
    description: riskDocs.list,
    query: RiskEventListQuery,
    status: 200,
    response: listResponse(RiskEvent),
    handler: async ({ res, query }) => envelope.list(await listRiskEvents(db, authOf(res).organizationId, query), (e) => e),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/risk-events/:id',
    summary: 'Retrieve a risk event',
    description: riskDocs.retrieve,
    query: z.strictObject({}),
    status: 200,
    response: oneResponse(RiskEvent),
    handler: async ({ res, params }) => envelope.one(await retrieveRiskEvent(db, authOf(res).organizationId, params.id)),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/risk-events/:id/resolve',
    summary: 'Resolve a risk event',
    description: riskDocs.resolve,
    body: RiskResolve,
    status: 200,
    errors: [404, 409],
    response: manyResponse(RiskEvent),
    handler: async ({ res, params, body }) => {
      const { event, queued } = await resolveRiskEvent(db, authOf(res).organizationId, params.id, body);
      if (queued) mailer.kick();
      const [shown] = await presentRiskEvents(db, [event]);
      return envelope.many(shown);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/programs/:id/risk-rules',
    summary: "Retrieve a program's risk rules",
    description: riskDocs.rules,
    query: z.strictObject({}),
    status: 200,
    response: oneResponse(RiskRuleSettings),
    handler: async ({ res, params }) => envelope.one(await programRules(db, authOf(res).organizationId, params.id)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/programs/:id/risk-rules',
    summary: "Change a program's risk rules",
    description: riskDocs.changeRules,
    body: RiskRuleChanges,
    status: 200,
    response: manyResponse(RiskRuleSettings),
    handler: async ({ res, params, body }) => envelope.many(await changeProgramRules(db, authOf(res).organizationId, params.id, body)),
  });
}
