import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { COMMISSION_FULL_FIELDS, COMMISSION_INCLUDED_FIELDS, COMMISSION_SHORT_FIELDS } from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';

/** The OpenAPI document is generated from the same route definitions that serve the API. */

type Operation = {
  security?: unknown[];
  responses: Record<string, unknown>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: unknown;
};
type OpenApiDoc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** Every method + path the Express app itself serves, by walking its router (and nested routers). */
function servedRoutes(router: any): string[] {
  const out: string[] = [];
  for (const layer of router?.stack ?? []) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        // CORS preflights (OPTIONS) are not API operations.
        if (layer.route.methods[method] && method !== '_all' && method !== 'options') out.push(`${method} ${layer.route.path}`);
      }
    } else if (layer.handle?.stack) {
      out.push(...servedRoutes(layer.handle));
    }
  }
  return out;
}

const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

/**
 * Every operation svc serves under /v1, each with its reference in the OpenAPI document
 * (ingest/docs/api.md): this list keeps the documented operations equal to the served routes.
 */
const EXPECTED = [
  'get /v1/programs',
  'post /v1/programs',
  'get /v1/programs/{id}',
  'put /v1/programs/{id}',
  'get /v1/groups',
  'post /v1/groups',
  'get /v1/groups/{id}',
  'put /v1/groups/{id}',
  'delete /v1/groups/{id}',
  'get /v1/partners',
  'post /v1/partners',
  'get /v1/partners/{id}',
  'put /v1/partners/{id}',
  'delete /v1/partners/{id}',
  'get /v1/api-keys',
  'post /v1/api-keys',
  'delete /v1/api-keys/{id}',
  'get /v1/links',
  'post /v1/links',
  'get /v1/links/{id}',
  'put /v1/links/{id}',
  'delete /v1/links/{id}',
  'post /v1/clicks',
  'get /v1/promotion-codes',
  'post /v1/promotion-codes',
  'get /v1/promotion-codes/{id}',
  'put /v1/promotion-codes/{id}',
  'delete /v1/promotion-codes/{id}',
  'get /v1/customers',
  'post /v1/customers',
  'get /v1/customers/{id}',
  'put /v1/customers/{id}',
  'delete /v1/customers/{id}',
  'get /v1/flows',
  'post /v1/flows',
  'get /v1/flows/{id}',
  'put /v1/flows/{id}',
  'delete /v1/flows/{id}',
  'get /v1/transactions',
  'post /v1/transactions',
  'get /v1/transactions/{id}',
  'put /v1/transactions/{id}',
  'delete /v1/transactions/{id}',
  'put /v1/transactions/{id}/refund',
  'get /v1/commissions',
  'post /v1/commissions',
  'get /v1/commissions/{id}',
  'put /v1/commissions/{id}',
  'delete /v1/commissions/{id}',
  'put /v1/programs/{id}/integrations/stripe',
  'get /v1/programs/{id}/integrations/stripe',
  'delete /v1/programs/{id}/integrations/stripe',
  'get /v1/programs/{id}/integrations/stripe/events',
  'post /v1/webhook-endpoints',
  'get /v1/webhook-endpoints',
  'get /v1/webhook-endpoints/{id}',
  'put /v1/webhook-endpoints/{id}',
  'delete /v1/webhook-endpoints/{id}',
  'post /v1/webhook-endpoints/{id}/rotate-secret',
  'post /v1/webhook-endpoints/{id}/test',
  'get /v1/webhook-endpoints/{id}/deliveries',
  'get /v1/events',
  'get /v1/events/{id}',
  'post /v1/events/{id}/resend',
  'post /v1/payouts/generate',
  'get /v1/payouts',
  'get /v1/payouts/export',
  'get /v1/payouts/{id}',
  'put /v1/payouts/{id}',
  'get /v1/payouts/{id}/commissions',
  'get /v1/programs/{id}/balances',
  'get /v1/programs/{id}/stats',
  'post /v1/partners/{id}/embed-tokens',
];

/** POSTs that act on a record rather than create one: they answer 200. */
const ACTIONS = ['post /v1/webhook-endpoints/{id}/rotate-secret', 'post /v1/events/{id}/resend'];

/** POSTs that take no body (nothing to say but which record). */
const BODYLESS = ['post /v1/webhook-endpoints/{id}/rotate-secret', 'post /v1/webhook-endpoints/{id}/test'];

/** The tracking script's endpoints: authenticated by the program's public key in the body. */
const PUBLIC = ['post /v1/track/click', 'post /v1/track/signup'];

/** Where Stripe posts: authenticated by the Stripe-Signature of the body. */
const STRIPE_WEBHOOK = 'post /v1/integrations/stripe/webhook/{program_id}';

describe('OpenAPI document', () => {
  const { t } = useTestApp();
  let doc: OpenApiDoc;
  let documented: string[];

  beforeAll(async () => {
    const res = await t.request.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    documented = Object.entries(doc.paths ?? {}).flatMap(([path, ops]) =>
      METHODS.filter((m) => ops[m] !== undefined).map((m) => `${m} ${path}`),
    );
  });

  it('is served as JSON without an API key and declares OpenAPI 3.1', async () => {
    const res = await t.request.get('/v1/openapi.json');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
  });

  it('documents every operation of the /v1 API built so far', () => {
    expect(documented).toEqual(expect.arrayContaining(EXPECTED));
  });

  it('documents exactly the /v1 routes the app serves, no more and no fewer', () => {
    const app = createApp(t.deps);
    const served = servedRoutes((app as any).router)
      .filter((r) => r.split(' ')[1].startsWith('/v1/') && r !== 'get /v1/openapi.json')
      .map((r) => {
        const [method, path] = r.split(' ');
        return `${method} ${toOpenApiPath(path)}`;
      });
    expect(served.length).toBeGreaterThanOrEqual(EXPECTED.length);
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('documents the Stripe webhook without the secret-key scheme', () => {
    const op = doc.paths['/v1/integrations/stripe/webhook/{program_id}']?.post;
    expect(op, STRIPE_WEBHOOK).toBeDefined();
    expect(op.security).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '503']));
  });

  it("documents the script's public operations without the secret-key scheme", () => {
    expect(documented).toEqual(expect.arrayContaining(PUBLIC));
    for (const entry of PUBLIC) {
      const [method, path] = entry.split(' ');
      expect(doc.paths[path][method].security, entry).toBeUndefined();
      expect(Object.keys(doc.paths[path][method].responses), entry).toEqual(expect.arrayContaining(['400', '401', '404', '429']));
    }
  });

  it('every documented operation answers (401 without a key), so none is a dead entry', async () => {
    for (const entry of documented) {
      const [method, path] = entry.split(' ');
      const concrete = path.replace(/\{\w+\}/g, 'x_doesnotexist');
      const res = await t.request[method as 'get'](concrete);
      const op = doc.paths[path][method];
      expect(res.status, entry).toBe(op.security?.length ? 401 : res.status);
      expect(res.status, entry).not.toBe(404);
    }
  });

  it('secret-key operations declare the bearer security scheme and their shared error responses', () => {
    expect(doc.components?.securitySchemes?.secretKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const entry of EXPECTED) {
      const [method, path] = entry.split(' ');
      const op = doc.paths[path][method];
      expect(op.security, entry).toEqual([{ secretKey: [] }]);
      const statuses = Object.keys(op.responses);
      const creates = method === 'post' && !ACTIONS.includes(entry);
      expect(statuses, entry).toEqual(expect.arrayContaining([creates ? '201' : '200', '400', '401', '429']));
      if (path.includes('{id}')) expect(statuses, entry).toContain('404');
      if ((method === 'post' || method === 'put') && !BODYLESS.includes(entry)) {
        expect(op.requestBody, entry).toBeDefined();
        expect(statuses, entry).toContain('413');
      }
    }
  });

  it('describes every operation: a summary and a description with some text in it', () => {
    expect(documented.length).toBeGreaterThanOrEqual(EXPECTED.length);
    for (const entry of documented) {
      const [method, path] = entry.split(' ');
      const op = doc.paths[path][method] as Operation & { summary?: unknown; description?: unknown };
      expect(typeof op.summary === 'string' && op.summary.trim() !== '', `${entry}: summary`).toBe(true);
      expect(typeof op.description === 'string' && op.description.trim() !== '', `${entry}: description`).toBe(true);
    }
  });

  it('says "beyond the spec" on the operations of the resources the Partnership Program API Specification does not have', () => {
    const beyond = /^\/v1\/programs(\/\{id\})?$|^\/v1\/(groups|flows|promotion-codes|payouts)(\/|$)|^\/v1\/programs\/\{id\}\/balances$/;
    const marked = documented.filter((entry) => beyond.test(entry.split(' ')[1]));
    expect(marked.length).toBeGreaterThanOrEqual(26);
    for (const entry of marked) {
      const [method, path] = entry.split(' ');
      const op = doc.paths[path][method] as Operation & { description?: string };
      expect(op.description, entry).toMatch(/beyond the spec/i);
    }
  });

  it('documents the list parameters and the path ids', () => {
    const list = doc.paths['/v1/partners'].get;
    const names = (list.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['program_id', 'limit', 'starting_after', 'ending_before', 'order', 'created_gte', 'created_lte', 'expand']),
    );
    const retrieve = doc.paths['/v1/groups/{id}'].get;
    expect((retrieve.parameters ?? []).some((p) => p.in === 'path' && p.name === 'id')).toBe(true);
  });

  it('every $ref points at a component that exists', () => {
    const refs = new Set<string>();
    const visit = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.add(v);
          else visit(v);
        }
      }
    };
    visit(doc);
    expect(refs.size).toBeGreaterThan(0);
    for (const ref of refs) {
      const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
      expect(match, ref).not.toBeNull();
      expect(doc.components?.schemas?.[match![1]], ref).toBeDefined();
    }
    for (const name of ['Program', 'Group', 'Partner', 'ApiKey', 'Error']) expect(doc.components?.schemas?.[name], name).toBeDefined();
  });

  it("documents the commission field sets as served: the Partnership Program API's sets required, rejection_reason only with include[] (given on create and update)", () => {
    type Schema = { $ref?: string; properties?: Record<string, { type?: unknown; maxLength?: number }>; required?: string[] };
    const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
    const resolve = (s: Schema): Schema => (s.$ref ? schemas[s.$ref.replace('#/components/schemas/', '')] : s);
    const bodyOf = (path: string, method: string) =>
      resolve((doc.paths[path][method].requestBody as { content: Record<string, { schema: Schema }> }).content['application/json'].schema);
    for (const body of [bodyOf('/v1/commissions/{id}', 'put'), bodyOf('/v1/commissions', 'post')]) {
      expect(body.properties?.rejection_reason).toMatchObject({ type: ['string', 'null'], maxLength: 2000 });
      expect(body.required ?? []).not.toContain('rejection_reason');
    }
    // What every answer has is exactly the Partnership Program API's set; the rest (expansions,
    // includes) is optional.
    const sets = { Commission: COMMISSION_SHORT_FIELDS, FullCommission: COMMISSION_FULL_FIELDS };
    const optional = {
      Commission: ['partner', 'program', 'customer', 'transaction', ...COMMISSION_INCLUDED_FIELDS],
      FullCommission: COMMISSION_INCLUDED_FIELDS,
    };
    for (const [name, set] of Object.entries(sets)) {
      const schema = schemas[name];
      expect([...(schema.required ?? [])].sort(), name).toEqual([...set].sort());
      expect(Object.keys(schema.properties ?? {}).sort(), name).toEqual([...set, ...optional[name as keyof typeof optional]].sort());
      expect(schema.properties?.rejection_reason, name).toMatchObject({ type: ['string', 'null'] });
    }
    // Each operation that answers commissions documents the opt-in.
    const operations = [
      ['/v1/commissions', 'post'],
      ['/v1/commissions', 'get'],
      ['/v1/commissions/{id}', 'get'],
      ['/v1/commissions/{id}', 'put'],
      ['/v1/payouts/{id}/commissions', 'get'],
    ] as const;
    for (const [path, method] of operations) {
      const operation = doc.paths[path][method] as Operation & { description?: string };
      expect(
        operation.parameters?.some((p) => p.in === 'query' && p.name === 'include'),
        `${method} ${path}`,
      ).toBe(true);
      if (path.startsWith('/v1/commissions')) expect(operation.description, `${method} ${path}`).toContain('include[]=rejection_reason');
    }
  });

  it('GET /docs serves an HTML API reference that loads the document', async () => {
    const res = await t.request.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html/i);
    expect(res.text).toContain('/v1/openapi.json');
  });
});
