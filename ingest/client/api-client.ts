import type { z } from 'zod';
import type * as apiKeys from '../src/resources/api-keys/api-keys.schema.js';
import type * as clicks from '../src/resources/clicks/clicks.schema.js';
import type * as commissions from '../src/resources/commissions/commissions.schema.js';
import type * as customers from '../src/resources/customers/customers.schema.js';
import type * as events from '../src/resources/events/events.schema.js';
import type * as flows from '../src/resources/flows/flows.schema.js';
import type * as groups from '../src/resources/groups/groups.schema.js';
import type * as links from '../src/resources/links/links.schema.js';
import type * as partners from '../src/resources/partners/partners.schema.js';
import type * as payouts from '../src/resources/payouts/payouts.schema.js';
import type * as programs from '../src/resources/programs/programs.schema.js';
import type * as promotionCodes from '../src/resources/promotion-codes/promotion-codes.schema.js';
import type * as stripe from '../src/resources/stripe/stripe.schema.js';
import type * as transactions from '../src/resources/transactions/transactions.schema.js';
import type * as webhookEndpoints from '../src/resources/webhook-endpoints/webhook-endpoints.schema.js';

/**
 * A small client of the `/v1` API with a secret key, for server-side code (the demo merchant,
 * the browser tests, the benchmark): global `fetch`, no dependencies. The answer's type follows
 * from the method and the path, as the API's own schemas describe it (type-only imports: nothing
 * of ingest is loaded at run time); a path it does not know answers `unknown`.
 */

export type Partner = z.infer<typeof partners.Partner>;
export type PartnerStats = z.infer<typeof partners.PartnerStats>;
export type Link = z.infer<typeof links.Link>;
export type Click = z.infer<typeof clicks.Click>;
export type Customer = z.infer<typeof customers.Customer>;
export type Transaction = z.infer<typeof transactions.Transaction>;
/** The short field set of list and retrieve; writes answer a `FullCommission` (amounts as strings). `rejection_reason` only with `include[]=rejection_reason`. */
export type Commission = z.infer<typeof commissions.Commission>;
export type FullCommission = z.infer<typeof commissions.FullCommission>;
export type Program = z.infer<typeof programs.Program>;
export type StripeIntegration = z.infer<typeof stripe.StripeIntegration>;
export type StripeEventRecord = z.infer<typeof stripe.StripeEventRecord>;
export type Event = z.infer<typeof events.Event>;
export type WebhookEndpoint = z.infer<typeof webhookEndpoints.WebhookEndpoint>;
export type WebhookDelivery = z.infer<typeof webhookEndpoints.WebhookDelivery>;
export type Payout = z.infer<typeof payouts.Payout>;

/**
 * The envelopes of ingest/docs/api.md#responses: retrieve → the object; create and update → an
 * array of one; lists → a page.
 */
export type One<T> = { success: true; data: T };
export type Written<T> = { success: true; data: T[] };
export type List<T> = { success: true; data: T[]; has_more: boolean; total_count: number };
export type Deleted = { success: true; data: { id: string; deleted: true } };

interface Answers<T, W = T> {
  one: One<T>;
  list: List<T>;
  written: Written<W>;
}

/**
 * Each collection under /v1 and its answers, with the Partnership Program API's exceptions spelled
 * out.
 */
interface Collections {
  'api-keys': Answers<z.infer<typeof apiKeys.ApiKey>, z.infer<typeof apiKeys.ApiKeyWithSecret>>;
  clicks: Answers<Click>;
  commissions: Answers<Commission, FullCommission>;
  // A customer list nests its array in data.data; writes add the identifier (and warnings).
  customers: { one: One<Customer>; list: z.infer<typeof customers.CustomerList>; written: z.infer<typeof customers.CustomerWrite> };
  flows: Answers<z.infer<typeof flows.Flow>>;
  groups: Answers<z.infer<typeof groups.Group>>;
  // Retrieving a link answers an array of one.
  links: { one: Written<Link>; list: List<Link>; written: Written<Link> };
  partners: Answers<Partner>;
  programs: Answers<Program>;
  'promotion-codes': Answers<z.infer<typeof promotionCodes.PromotionCode>>;
  transactions: Answers<Transaction>;
  // The signing secret is only in the create answer.
  'webhook-endpoints': Answers<WebhookEndpoint, z.infer<typeof webhookEndpoints.WebhookEndpointWithSecret>>;
  events: Answers<Event>;
  payouts: Answers<Payout>;
}

type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;
/** A program's Stripe connection (`PUT` answers the state, not an array) and its events. */
type StripeOf<P extends string> =
  WithoutQuery<P> extends `/v1/programs/${string}/integrations/stripe/events`
    ? { one: List<StripeEventRecord>; written: never }
    : WithoutQuery<P> extends `/v1/programs/${string}/integrations/stripe`
      ? { one: One<StripeIntegration>; written: One<StripeIntegration> }
      : never;
/** An endpoint's delivery log. */
type DeliveriesOf<P extends string> =
  WithoutQuery<P> extends `/v1/webhook-endpoints/${string}/deliveries` ? { one: List<WebhookDelivery>; written: never } : never;
type ItemOf<P extends string> = Or<
  Or<StripeOf<P>, DeliveriesOf<P>>,
  WithoutQuery<P> extends `/v1/${infer C extends keyof Collections}/${string}` ? Collections[C] : never
>;
type CollectionOf<P extends string> = WithoutQuery<P> extends `/v1/${infer C extends keyof Collections}` ? Collections[C] : never;
type Or<T, Fallback> = [T] extends [never] ? Fallback : T;

/** `GET /v1/partners/{id}` → One<Partner>, `GET /v1/partners?…` → List<Partner>, and so on. */
export type GetAnswer<P extends string> = Or<ItemOf<P>['one'] | CollectionOf<P>['list'], unknown>;
export type PostAnswer<P extends string> = Or<CollectionOf<P>['written'], unknown>;
/** Also `PUT /v1/transactions/{id}/refund`, which answers the transaction. */
export type PutAnswer<P extends string> = Or<ItemOf<P>['written'], unknown>;
export type DeleteAnswer<P extends string> = [ItemOf<P>] extends [never] ? unknown : Deleted;

/** A non-2xx answer: `message` is the API's own message (`error` or `error.message` of the body). */
export class ApiCallError extends Error {
  override name = 'ApiCallError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(messageOf(body) ?? `svc answered ${status} to ${method} ${path}`);
  }
}

function messageOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

export interface CallOptions {
  /**
   * Sent as `Idempotency-Key` (ingest/docs/api.md#idempotency): a retry with the same key replays
   * the first answer.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ApiClientOptions {
  /** A fresh `Idempotency-Key` on every POST, PUT and DELETE that names none, as a careful client sends. */
  idempotencyKeys?: boolean;
}

export interface ApiClient {
  readonly baseUrl: string;
  get<P extends string>(path: P, options?: CallOptions): Promise<GetAnswer<P>>;
  post<P extends string>(path: P, body: object, options?: CallOptions): Promise<PostAnswer<P>>;
  put<P extends string>(path: P, body: object, options?: CallOptions): Promise<PutAnswer<P>>;
  del<P extends string>(path: P, options?: CallOptions): Promise<DeleteAnswer<P>>;
}

/** `baseUrl` is where svc answers (e.g. `http://localhost:8787`); paths start with `/v1/`. */
export function apiClient(baseUrl: string, secretKey: string, clientOptions: ApiClientOptions = {}): ApiClient {
  async function call(method: string, path: string, body: object | undefined, options: CallOptions = {}): Promise<never> {
    const headers: Record<string, string> = { authorization: `Bearer ${secretKey}` };
    if (body) headers['content-type'] = 'application/json';
    const idempotencyKey = options.idempotencyKey ?? (clientOptions.idempotencyKeys && method !== 'GET' ? crypto.randomUUID() : undefined);
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const res = await fetch(baseUrl + path, { method, headers, body: body && JSON.stringify(body), signal: options.signal });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    if (!res.ok) throw new ApiCallError(method, path, res.status, json);
    // The caller's type for this path (GetAnswer and the others) is the API's description of this answer.
    return json as never;
  }
  return {
    baseUrl,
    get: (path, options) => call('GET', path, undefined, options),
    post: (path, body, options) => call('POST', path, body, options),
    put: (path, body, options) => call('PUT', path, body, options),
    del: (path, options) => call('DELETE', path, undefined, options),
  };
}
