import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { type ZodType, z } from 'zod';
import { markSecretBearing } from './secrets.js';
import { rejectUnstorableText, validate } from './validation.js';

export type Method = 'get' | 'post' | 'put' | 'delete';

export interface RouteContext<B, Q> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
}

export interface RouteDefinition<B extends ZodType | undefined, Q extends ZodType | undefined> {
  method: Method;
  /** Express-style path, e.g. `/v1/partners/:id`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  body?: B;
  query?: Q;
  /** Middleware run before validation (authentication, rate limit, idempotency). */
  guards?: RequestHandler[];
  security?: 'secret' | 'public';
  /** The response carries a secret: `Cache-Control: no-store`, and an idempotent replay leaves it out. */
  carriesSecret?: true;
  /**
   * The response is a file of this content type (a CSV export), streamed from the handler's
   * `FileAnswer` as it is read, instead of a JSON envelope.
   */
  file?: string;
  status: 200 | 201;
  response: ZodType;
  /** Documented error statuses besides the shared 400/401/429. */
  errors?: readonly number[];
  /** Error bodies that differ from the shared error shape, by status. */
  errorBodies?: Record<number, ZodType>;
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>>) => unknown | Promise<unknown>;
}

type Infer<T> = T extends ZodType ? z.output<T> : undefined;

/**
 * What the handler of a `file` route answers: the file's name, its content (read as it is sent)
 * and the transforms it goes through (a CSV writer). A failure while it is read ends the
 * response early, and the client sees an incomplete answer.
 */
export interface FileAnswer {
  filename: string;
  body: AsyncIterable<unknown>;
  through: Transform[];
}

/**
 * What an operation without a body or query schema takes: nothing. Unknown parameters answer
 * 400 on every operation (ingest/docs/api.md#errors), and a body sent where none belongs is refused
 * rather than ignored, as a DELETE with `{"id": …}` would otherwise still delete; an empty
 * object, which some clients always send, is accepted.
 */
const NOTHING = z.strictObject({});

const errorBody = z
  .object({
    success: z.literal(false),
    error: z.union([z.string(), z.object({ message: z.string(), type: z.string(), param: z.string().optional() })]),
  })
  .meta({ id: 'Error' });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (validation, unknown parameters, malformed JSON)',
  401: 'Invalid API key provided',
  404: 'Not found (or belongs to another organization)',
  409: 'Conflict with an existing record, or an idempotent request still in flight',
  413: 'Request body over 100 KB',
  429: 'Rate limit exceeded',
};

/**
 * Routes are declared once: the same definition validates requests, runs the handler and
 * documents the operation in the OpenAPI document.
 */
export class ApiBuilder {
  readonly router = express.Router();
  readonly registry = new OpenAPIRegistry();

  constructor() {
    this.registry.registerComponent('securitySchemes', 'secretKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'A secret API key, `sk_…`',
    });
  }

  route<B extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined>(def: RouteDefinition<B, Q>): void {
    const handler: RequestHandler = async (req, res) => {
      rejectUnstorableText(req.params, []);
      if (def.carriesSecret) markSecretBearing(res);
      const body = def.body ? validate(def.body, req.body ?? {}, 'body') : void validate(NOTHING, req.body ?? {}, 'body');
      const query = def.query ? validate(def.query, req.query, 'query') : void validate(NOTHING, req.query, 'query');
      const payload = await def.handler({
        req,
        res,
        body: body as Infer<B>,
        query: query as Infer<Q>,
        params: req.params as Record<string, string>,
      });
      if (def.file) {
        const { filename, body: source, through } = payload as FileAnswer;
        res.status(def.status).type(def.file).attachment(filename);
        await pipeline([Readable.from(source), ...through, res]);
        return;
      }
      res.status(def.status).json(payload);
    };
    this.router[def.method](def.path, ...(def.guards ?? []), handler);
    this.document(def);
  }

  private document(def: RouteDefinition<ZodType | undefined, ZodType | undefined>): void {
    const pathParams = [...def.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const errors = new Set([400, 413, 429, ...(def.security === 'secret' ? [401] : []), ...(def.errors ?? [])]);
    if (def.method === 'get' || def.method === 'delete') errors.delete(413);
    this.registry.registerPath({
      method: def.method,
      path: def.path.replace(/:(\w+)/g, '{$1}'),
      tags: [def.tag],
      summary: def.summary,
      description: def.description,
      security: def.security === 'secret' ? [{ secretKey: [] }] : undefined,
      request: {
        params: pathParams.length ? z.object(Object.fromEntries(pathParams.map((p) => [p, z.string()]))) : undefined,
        query: def.query as z.ZodObject | undefined,
        body: def.body ? { content: { 'application/json': { schema: def.body } } } : undefined,
      },
      responses: {
        [def.status]: { description: 'Success', content: { [def.file ?? 'application/json']: { schema: def.response } } },
        ...Object.fromEntries(
          [...errors].sort().map((s) => [
            s,
            {
              description: ERROR_DESCRIPTIONS[s] ?? 'Error',
              content: { 'application/json': { schema: def.errorBodies?.[s] ?? errorBody } },
            },
          ]),
        ),
      },
    });
  }

  openApiDocument(serverUrl?: string): object {
    return new OpenApiGeneratorV31(this.registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'svc partner program API',
        version: '1.0.0',
        description:
          'Partners, links, clicks, customers, transactions and commissions of a self-hosted partner program. The API follows the Partnership Program API Specification ("the spec" below): its operations, and its field sets exactly. What svc adds (programs, groups, flows, promotion codes, payouts, webhooks…) is marked "beyond the spec". Conventions shared by every operation (keys, errors, lists, idempotency, rate limits) are in the repository\'s ingest/docs/api.md.',
      },
      servers: serverUrl ? [{ url: serverUrl }] : undefined,
    });
  }
}
