import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { manyResponse } from '../../http/responses.js';
import { Click, ClickCreate, LinkNotFoundResponse } from './clicks.schema.js';
import { toClick } from './clicks.serializer.js';
import { recordClick } from './clicks.service.js';

export function registerClickRoutes(api: ApiBuilder, { db, store, writeClick, config, secretGuards }: RouteDeps): void {
  api.route({
    tag: 'Clicks',
    security: 'secret',
    guards: secretGuards,
    method: 'post',
    path: '/v1/clicks',
    summary: 'Record a click',
    description:
      'Method 1: `partner_id` (and optionally `link_id`, a link of that partner). Method 2: `param` + `value` (and optionally `program_id`; without it the link is looked up across the organization’s programs, and a value found in several → 400). An unknown param/value answers 404 `{"success":false,"error":"Link not found"}`. `browser` and, unless given, `device` come from the User-Agent.',
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
