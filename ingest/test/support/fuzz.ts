import zlib from 'node:zlib';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Response } from 'supertest';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { ERROR_STATUS, type ErrorType } from '../../src/http/errors.js';
import type { TestApp } from './harness.js';

/**
 * Building blocks of the malformed-request fuzz test (api/fuzz.test.ts): the operations of the
 * OpenAPI document, generators of requests that no valid client sends, and a fingerprint of the
 * database to show that such a request wrote nothing.
 *
 * Every generator here must produce a request that is invalid whatever else it carries, so that
 * the test can demand a 4xx of each one: a value that might be valid belongs to the edge-value
 * property, which only demands that nothing fails with a 5xx.
 */

export type Method = 'get' | 'post' | 'put' | 'delete';

/** The part of JSON Schema (OpenAPI 3.1) the generated document uses. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

export interface QueryParam {
  schema: JsonSchema;
  required: boolean;
}

export interface Operation {
  /** `POST /v1/partners/{id}`, as the OpenAPI document writes it. */
  key: string;
  method: Method;
  path: string;
  pathParams: string[];
  query: Map<string, QueryParam>;
  body?: JsonSchema;
  security: 'secret' | 'public';
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        security?: unknown[];
      }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Every operation of the document, with `$ref`s resolved. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const components = doc.components?.schemas ?? {};
  const resolve = (schema: JsonSchema, seen: string[] = []): JsonSchema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      if (seen.includes(name)) throw new Error(`Recursive schema ${name} is not supported by the fuzz test`);
      return resolve(components[name], [...seen, name]);
    }
    const out: JsonSchema = { ...schema };
    if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v, seen)]));
    if (schema.items) out.items = resolve(schema.items, seen);
    if (typeof schema.additionalProperties === 'object') out.additionalProperties = resolve(schema.additionalProperties, seen);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (schema[key]) out[key] = schema[key]!.map((s) => resolve(s, seen));
    return out;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const body = op.requestBody?.content['application/json']?.schema;
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method as Method,
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: new Map(
          params.filter((p) => p.in === 'query').map((p) => [p.name, { schema: resolve(p.schema), required: Boolean(p.required) }]),
        ),
        body: body && resolve(body),
        security: op.security?.length ? 'secret' : 'public',
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Requests

/** A request as it goes on the wire: the URL already encoded, the body as raw bytes. */
export interface FuzzRequest {
  /** What is wrong with it, for the failure report. */
  what: string;
  method: Method;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Timestamps sent that a success must answer with as the same moment, by field. */
  echo?: Record<string, string>;
}

/** A well-formed request an operation accepts: the starting point every malformation changes. */
export interface Baseline {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** JSON text inserted as is: numbers JSON.stringify cannot write (2^53 + 1, 1e400), deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A JSON string whose bytes are not UTF-8. */
export class RawBytes {
  constructor(readonly bytes: Buffer) {}
}

/**
 * JSON bytes of a value that may hold RawJson and RawBytes. Object keys are written as they are
 * own properties, `__proto__` included. Recursion is bounded by the value, which these
 * generators keep shallow (deep nesting is a RawJson).
 */
export function jsonBytes(value: unknown): Buffer {
  const chunks: Buffer[] = [];
  const write = (v: unknown): void => {
    if (v instanceof RawJson) chunks.push(Buffer.from(v.text));
    else if (v instanceof RawBytes) chunks.push(Buffer.from('"'), v.bytes, Buffer.from('"'));
    else if (Array.isArray(v)) {
      chunks.push(Buffer.from('['));
      v.forEach((item, i) => {
        if (i) chunks.push(Buffer.from(','));
        write(item === undefined ? null : item);
      });
      chunks.push(Buffer.from(']'));
    } else if (v !== null && typeof v === 'object') {
      chunks.push(Buffer.from('{'));
      let first = true;
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined) continue;
        if (!first) chunks.push(Buffer.from(','));
        first = false;
        chunks.push(Buffer.from(`${JSON.stringify(key)}:`));
        write(item);
      }
      chunks.push(Buffer.from('}'));
    } else chunks.push(Buffer.from(JSON.stringify(v) ?? 'null'));
  };
  write(value);
  return Buffer.concat(chunks);
}

/** A deep copy of plain JSON data that keeps own `__proto__` keys as keys. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value === null || typeof value !== 'object' || value instanceof RawJson || value instanceof RawBytes) return value;
  const out = {} as Record<string, unknown>;
  for (const key of Object.keys(value)) defineKey(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}

/** Sets an own property, even one named `__proto__`. */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Sets the value at a path; false when an earlier change replaced a container on the way (that
 * change alone already makes the body invalid).
 */
function setAt(root: Record<string, unknown>, path: (string | number)[], value: unknown): boolean {
  let node: unknown = root;
  for (const step of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object' || node instanceof RawJson || node instanceof RawBytes) return false;
    node = (node as Record<string | number, unknown>)[step];
  }
  if (node === null || typeof node !== 'object' || node instanceof RawJson || node instanceof RawBytes) return false;
  const last = path[path.length - 1];
  if (Array.isArray(node)) node[last as number] = value;
  else defineKey(node as Record<string, unknown>, String(last), value);
  return true;
}

/** The value at a path, or undefined. */
function getAt(root: unknown, path: (string | number)[]): unknown {
  let node = root;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

const pathText = (path: (string | number)[]) => path.join('.');

/** Query string of ordered pairs; each part is written exactly as given (already encoded). */
export const rawQuery = (pairs: [string, string][]) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : '');
/** Percent-encodes text for a URL; lone surrogates (which encodeURIComponent refuses) become U+FFFD, as a URL cannot carry them. */
export const enc = (s: string) =>
  encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

export interface RequestParts {
  op: Operation;
  baseline: Baseline;
  auth: Record<string, string>;
}

/** The path with its parameters filled in; `segment` replaces the (last) path parameter as raw, already encoded text. */
export function pathOf(op: Operation, params: Record<string, string> = {}, segment?: string): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => (segment !== undefined ? segment : enc(params[name] ?? 'missing')));
}

/** Builds a request from the baseline, changing only what the caller gives. */
export function build(
  { op, baseline, auth }: RequestParts,
  change: {
    what: string;
    segment?: string;
    query?: [string, string][];
    headers?: Record<string, string>;
    body?: Buffer | null;
    contentType?: string | null;
  },
): FuzzRequest {
  const query = change.query ?? Object.entries(baseline.query ?? {}).map(([k, v]) => [enc(k), enc(v)] as [string, string]);
  const headers: Record<string, string> = { ...auth, ...baseline.headers, ...change.headers };
  let body: Buffer | undefined;
  if (change.body === null) body = undefined;
  else if (change.body !== undefined) body = change.body;
  else if (baseline.body !== undefined) body = jsonBytes(baseline.body);
  const contentType = change.contentType === undefined ? (body ? 'application/json' : null) : change.contentType;
  if (contentType !== null) headers['Content-Type'] = contentType;
  return { what: change.what, method: op.method, url: pathOf(op, baseline.params, change.segment) + rawQuery(query), headers, body };
}

/** Sends a request byte for byte (supertest would serialize a Buffer as JSON). */
export function send(t: TestApp, req: FuzzRequest): Promise<Response> {
  let r = t.request[req.method](req.url);
  for (const [name, value] of Object.entries(req.headers)) r = r.set(name, value);
  if (req.body !== undefined) r = r.serialize((b: unknown) => b as string).send(req.body as unknown as string);
  return r;
}

/** One line describing a request, for failure reports. */
export function describeRequest(req: FuzzRequest): string {
  const body = req.body === undefined ? '' : ` body(${req.body.length} B)=${JSON.stringify(req.body.subarray(0, 300).toString('latin1'))}`;
  const headers = Object.entries(req.headers)
    .filter(([k]) => k.toLowerCase() !== 'authorization')
    .map(([k, v]) => `${k}: ${v.slice(0, 80)}`)
    .join('; ');
  const auth = req.headers.Authorization ?? req.headers.authorization;
  return `[${req.what}] ${req.method.toUpperCase()} ${req.url.slice(0, 400)}${req.url.length > 400 ? `…(${req.url.length} chars)` : ''} {${headers}}${auth === undefined ? ' (no Authorization)' : ''}${body}`;
}

/** A 4xx in the error envelope: `{success:false, error: string | {message, type, param?}}` (and `data` where documented). */
export function expectClientError(res: Response, req: FuzzRequest): void {
  const context = `${describeRequest(req)}\n→ ${res.status} ${JSON.stringify(res.body)?.slice(0, 500)}`;
  expect(res.status, context).toBeGreaterThanOrEqual(400);
  expect(res.status, context).toBeLessThan(500);
  expectErrorEnvelope(res, context);
}

export function expectErrorEnvelope(res: Response, context: string): void {
  expect(res.headers['content-type'], context).toMatch(/^application\/json/);
  const body = res.body as Record<string, unknown>;
  expect(body?.success, context).toBe(false);
  expect(
    Object.keys(body).every((k) => ['success', 'error', 'data'].includes(k)),
    context,
  ).toBe(true);
  const error = body.error as unknown;
  if (typeof error !== 'string') {
    expect(typeof error, context).toBe('object');
    const e = error as Record<string, unknown>;
    expect(typeof e.message, context).toBe('string');
    expect(typeof e.type, context).toBe('string');
    expect(e.param === undefined || typeof e.param === 'string', context).toBe(true);
    expect(
      Object.keys(e).every((k) => ['message', 'type', 'param'].includes(k)),
      context,
    ).toBe(true);
    // The type is one of the error table's, and the status is the one it goes with.
    expect(ERROR_STATUS[e.type as ErrorType], context).toBe(res.status);
  }
}

// ---------------------------------------------------------------------------------------------
// What a schema allows

const ALL_TYPES = ['string', 'number', 'boolean', 'null', 'object', 'array'] as const;
type JsonType = (typeof ALL_TYPES)[number];

const typeOfValue = (v: unknown): JsonType =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : (typeof v as JsonType);

/** The JSON types a schema may accept; conservative: unions count every branch, no type information counts everything. */
export function allowedTypes(schema: JsonSchema): Set<JsonType> {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return new Set(branches.flatMap((b) => [...allowedTypes(b)]));
  if (schema.allOf) return new Set(schema.allOf.flatMap((b) => [...allowedTypes(b)]));
  const out = new Set<JsonType>();
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const t of types) out.add(t === 'integer' ? 'number' : (t as JsonType));
  for (const v of schema.enum ?? []) out.add(typeOfValue(v));
  if ('const' in schema) out.add(typeOfValue(schema.const));
  return out.size ? out : new Set(ALL_TYPES);
}

const isPlainString = (s: JsonSchema) => {
  const t = allowedTypes(s);
  return t.has('string') && !t.has('number') && !t.has('boolean') && !t.has('object') && !t.has('array') && !s.anyOf && !s.oneOf;
};

/** The branch of a union that a value takes (by a `type` discriminator or by JSON type). */
function branchFor(schema: JsonSchema, value: unknown): JsonSchema {
  const branches = schema.anyOf ?? schema.oneOf;
  if (!branches) return schema;
  const kind = typeOfValue(value);
  const candidates = branches.filter((b) => allowedTypes(b).has(kind));
  if (kind === 'object' && value !== null) {
    const tag = (value as Record<string, unknown>).type;
    const tagged = candidates.find((b) => {
      const t = b.properties?.type;
      return t && (t.const === tag || t.enum?.includes(tag));
    });
    if (tagged) return tagged;
  }
  return candidates[0] ?? schema;
}

export interface FieldSlot {
  path: (string | number)[];
  schema: JsonSchema;
  /** The value the baseline holds there, if any. */
  current?: unknown;
}

/**
 * The places in a body a malformation can go: every property of the schema, and, where the
 * baseline holds an object or an array, the fields inside it.
 */
export function bodySlots(schema: JsonSchema, baseline: unknown, path: (string | number)[] = []): FieldSlot[] {
  const slots: FieldSlot[] = [];
  const s = branchFor(schema, baseline);
  if (s.properties) {
    for (const [name, sub] of Object.entries(s.properties)) {
      const current = (baseline as Record<string, unknown> | undefined)?.[name];
      slots.push({ path: [...path, name], schema: sub, current });
      if (current !== null && typeof current === 'object') slots.push(...bodySlots(sub, current, [...path, name]));
    }
  } else if (typeof s.additionalProperties === 'object' && baseline && typeof baseline === 'object' && !Array.isArray(baseline)) {
    for (const [name, current] of Object.entries(baseline)) slots.push({ path: [...path, name], schema: s.additionalProperties, current });
  } else if (s.items && Array.isArray(baseline) && baseline.length > 0) {
    slots.push({ path: [...path, 0], schema: s.items, current: baseline[0] });
    if (baseline[0] !== null && typeof baseline[0] === 'object') slots.push(...bodySlots(s.items, baseline[0], [...path, 0]));
  }
  return slots;
}

/** Objects in the baseline whose schema is a record (any key, values of one schema), such as payout_details. */
export function recordObjects(schema: JsonSchema, baseline: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (baseline === null || typeof baseline !== 'object' || Array.isArray(baseline)) return [];
  const s = branchFor(schema, baseline);
  if (!s.properties && typeof s.additionalProperties === 'object') return [path];
  return Object.entries(s.properties ?? {}).flatMap(([name, sub]) =>
    recordObjects(sub, (baseline as Record<string, unknown>)[name], [...path, name]),
  );
}

/** Objects in the baseline whose schema refuses unknown keys: where an unknown key must answer 400. */
export function strictObjects(
  schema: JsonSchema,
  baseline: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; known: Set<string> }[] {
  if (baseline === null || typeof baseline !== 'object') return [];
  const s = branchFor(schema, baseline);
  if (Array.isArray(baseline)) return s.items && baseline.length ? strictObjects(s.items, baseline[0], [...path, 0]) : [];
  const out: { path: (string | number)[]; known: Set<string> }[] = [];
  if (s.properties && s.additionalProperties === false) out.push({ path, known: new Set(Object.keys(s.properties)) });
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    const value = (baseline as Record<string, unknown>)[name];
    if (value !== undefined) out.push(...strictObjects(sub, value, [...path, name]));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Invalid values

/** Characters no pattern of the API allows anywhere in a value. */
const FOREIGN_CHARS = [' ', '!', '<', '%', '"', '\\', 'é', '€', '😀', '\t', '\n'];
/** Lone halves of a surrogate pair: not text, and not storable as UTF-8. */
export const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800'];

const insertAt = (s: string, at: number, piece: string) => s.slice(0, at % (s.length + 1)) + piece + s.slice(at % (s.length + 1));

/** Numbers as JSON text: beyond 2^53, beyond double range (JSON.parse makes them Infinity), fractions, signs. */
const NUMBER_LITERALS = [
  '9007199254740993',
  '-9007199254740993',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '1.5',
  '0.5',
  '0.001',
  '-1',
  '-0.5',
  '1e-7',
  '4.9e-324',
  '2147483648',
  '-2147483649',
  '99.999',
];

function numberIsInvalid(literal: string, schema: JsonSchema): boolean {
  const value = JSON.parse(literal) as number;
  if (!Number.isFinite(value)) return true;
  const types = allowedTypes(schema);
  if (!types.has('number')) return true;
  const integer = (Array.isArray(schema.type) ? schema.type : [schema.type]).includes('integer');
  if (integer && !Number.isInteger(value)) return true;
  if (schema.minimum !== undefined && value < schema.minimum) return true;
  if (schema.maximum !== undefined && value > schema.maximum) return true;
  return false;
}

/**
 * Timestamps that are not a moment PostgreSQL and JavaScript agree on, or not ISO 8601 at all:
 * UTC years 0 and 10000 (a valid local time can land there), impossible dates and times, no
 * offset, an offset out of range, epoch seconds.
 */
export const BAD_TIMESTAMPS = [
  '0000-01-01T00:00:00Z',
  '0000-06-15T12:00:00.000Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:59:59-00:01',
  '9999-12-31T23:59:59.999-23:59',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2020-13-01T00:00:00Z',
  '2020-02-30T00:00:00Z',
  '2021-02-29T00:00:00Z',
  '2020-01-01T24:00:01Z',
  '2020-01-01T00:00:60Z',
  '2020-01-01T00:00:00',
  '2020-01-01',
  '2020-01-01T00:00:00+24:00',
  '2020-01-01T00:00:00+99:99',
  '2020-01-01T00:00:00Z ',
  ' 2020-01-01T00:00:00Z',
  '1700000000',
  'now',
  'T',
  '',
];

/**
 * Timestamps a body may not store (ingest/docs/api.md#validation): years before 1000 (the embedded
 * driver reads years below 100 back as 19xx/20xx) and after 8999 (a date derived from one must keep
 * four digits).
 */
export const UNSTORABLE_TIMESTAMPS = [
  '0050-06-15T00:00:00Z',
  '0099-12-31T23:59:59Z',
  '0100-01-01T00:00:00Z',
  '0999-12-31T23:59:59.999Z',
  '9000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '0001-01-01T00:00:00Z',
];

export const UNKNOWN_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'a[b]',
  'a.b',
  '',
  ' ',
  '\u0000',
  'id\u0000',
  '$where',
  'x'.repeat(3000),
];

/** A string that breaks `schema` whatever the rest of the request holds; `null` when the schema takes any string. */
export function invalidString(
  schema: JsonSchema,
  base: string,
  opts: { stored?: boolean } = {},
): fc.Arbitrary<{ what: string; value: string }>[] {
  const out: fc.Arbitrary<{ what: string; value: string }>[] = [];
  const s = schema;
  if (s.maxLength !== undefined) {
    // Exactly n characters (code points, as JSON Schema and zod count them) with no whitespace at
    // either end, so trimming cannot bring it back under the cap.
    out.push(
      fc
        .tuple(fc.integer({ min: s.maxLength + 1, max: s.maxLength + 600 }), fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }))
        .map(([n, chunk]) => ({
          what: `longer than maxLength ${s.maxLength}`,
          value: `${[...`z${chunk.repeat(n)}`].slice(0, n - 1).join('')}z`,
        })),
    );
  }
  // Empty is below every minimum; a blank string would pass an untrimmed id field.
  if ((s.minLength ?? 0) >= 1) out.push(fc.constant({ what: 'shorter than minLength', value: '' }));
  if (s.enum) {
    out.push(
      fc
        .oneof(
          fc.constantFrom(...(s.enum.filter((v) => typeof v === 'string') as string[])).map((v) => `${v.toUpperCase()} `),
          fc.string({ maxLength: 12 }).map((v) => `${v}!`),
        )
        .filter((v) => !s.enum!.includes(v))
        .map((value) => ({ what: 'outside its enum', value })),
    );
  }
  if (s.pattern !== undefined) {
    const re = new RegExp(s.pattern);
    out.push(
      fc
        .tuple(fc.constantFrom(...FOREIGN_CHARS), fc.nat())
        .map(([c, at]) => insertAt(base || 'x', at, c))
        .filter((v) => !re.test(v))
        .map((value) => ({ what: `against pattern ${s.pattern}`, value })),
    );
  }
  if (s.format === 'date-time') {
    const bad = opts.stored ? [...BAD_TIMESTAMPS, ...UNSTORABLE_TIMESTAMPS] : BAD_TIMESTAMPS;
    out.push(fc.constantFrom(...bad).map((value) => ({ what: 'not a storable ISO 8601 timestamp', value })));
  }
  if (s.format === 'email')
    out.push(fc.constantFrom('no-at-sign', 'a@', '@b.co', 'a b@c.co', 'a@b@c.co').map((value) => ({ what: 'not an e-mail', value })));
  return out;
}

/** Values of a JSON type the schema does not take, whatever else it allows. */
export function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> | null {
  const allowed = allowedTypes(schema);
  const options: fc.Arbitrary<unknown>[] = [];
  if (!allowed.has('string')) options.push(fc.string({ maxLength: 10, unit: 'binary' }));
  if (!allowed.has('number')) options.push(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0)));
  if (!allowed.has('boolean')) options.push(fc.boolean());
  if (!allowed.has('null')) options.push(fc.constant(null));
  if (!allowed.has('object'))
    options.push(fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })));
  if (!allowed.has('array')) options.push(fc.oneof(fc.constant([]), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 })));
  return options.length ? fc.oneof(...options) : null;
}

/** Nesting far deeper than any schema has, in place of a value: arrays, or objects under one key. */
export const deepNesting = fc
  .tuple(fc.boolean(), fc.integer({ min: 40, max: 12_000 }))
  .map(([arrays, depth]) =>
    arrays ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

/** A malformed value for one body field: `null` when nothing is certainly invalid there. */
export function invalidValue(slot: FieldSlot, opts: { lenient?: boolean } = {}): fc.Arbitrary<{ what: string; value: unknown }> | null {
  const { schema } = slot;
  const arbs: fc.Arbitrary<{ what: string; value: unknown }>[] = [];
  const wrong = wrongType(schema);
  if (wrong) arbs.push(wrong.map((value) => ({ what: `wrong type ${typeOfValue(value)}`, value })));
  const types = allowedTypes(schema);
  // No schema nests more than a few levels, so thousands are wrong wherever they go.
  arbs.push(deepNesting.map((value) => ({ what: 'deeply nested', value })));
  if (types.has('number') && !types.has('string')) {
    const literals = NUMBER_LITERALS.filter((l) => numberIsInvalid(l, schema));
    const bounds = [
      ...(schema.minimum !== undefined ? [String(schema.minimum - 1), String(schema.minimum - 0.5)] : []),
      ...(schema.maximum !== undefined ? [String(schema.maximum + 1), `${schema.maximum}.5`] : []),
      ...(schema.minimum !== undefined && schema.minimum > 0 ? ['-0'] : []),
    ].filter((l) => numberIsInvalid(l, schema));
    const all = [...new Set([...literals, ...bounds])];
    if (all.length) arbs.push(fc.constantFrom(...all).map((l) => ({ what: `number ${l}`, value: new RawJson(l) })));
  }
  // A page or referrer the script reports is dropped when it is no URL, not refused
  // (script/README.md#the-endpoints-it-calls).
  if (types.has('string') && !opts.lenient) {
    const base = typeof slot.current === 'string' ? slot.current : 'text';
    arbs.push(
      fc
        .tuple(fc.nat(), fc.constantFrom('\u0000', 'a\u0000', '\u0000\u0000'))
        .map(([at, nul]) => ({ what: 'NUL character', value: insertAt(base, at, nul) })),
    );
    arbs.push(
      fc
        .tuple(fc.nat(), fc.constantFrom(...LONE_SURROGATES))
        .map(([at, half]) => ({ what: 'lone surrogate', value: insertAt(base, at, half) })),
    );
    arbs.push(
      fc
        .tuple(
          fc.nat(),
          fc.constantFrom(
            Buffer.from([0xff]),
            Buffer.from([0xc0, 0x80]),
            Buffer.from([0xed, 0xa0, 0x80]),
            Buffer.from([0xe2, 0x82]),
            Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
          ),
        )
        .map(([at, bytes]) => {
          const b = Buffer.from(JSON.stringify(base).slice(1, -1));
          const cut = at % (b.length + 1);
          return { what: 'bytes that are not UTF-8', value: new RawBytes(Buffer.concat([b.subarray(0, cut), bytes, b.subarray(cut)])) };
        }),
    );
    // Every timestamp in a body is stored.
    if (isPlainString(schema)) for (const a of invalidString(schema, base, { stored: true })) arbs.push(a);
  }
  return arbs.length ? fc.oneof(...arbs) : null;
}

// ---------------------------------------------------------------------------------------------
// Raw bodies

/** Content types that are not JSON (or not UTF-8 JSON), with the JSON body sent anyway. */
export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/octet-stream',
  'application/jsonx',
  'application/json-patch+json',
  'json',
  'application/json; charset=latin1',
  'application/json; charset=us-ascii',
  'application/json; charset=utf-16le',
  'application/json; charset=utf-32',
  'image/png',
  ';;;',
];

/** Bodies that are no JSON object (top-level scalars, truncated text, whitespace). */
export function brokenJson(valid: Buffer): fc.Arbitrary<{ what: string; body: Buffer }> {
  return fc.oneof(
    fc
      .constantFrom(
        '[]',
        '[{}]',
        '"text"',
        '123',
        '-0',
        'null',
        'true',
        '1e400',
        '   ',
        '\n',
        '{',
        '}',
        '{"a":}',
        '{,}',
        "{'a':1}",
        '{"a":1,}',
        '{"a" 1}',
        'NaN',
        '\u0000',
      )
      .map((text) => ({ what: `not a JSON object: ${JSON.stringify(text)}`, body: Buffer.from(text) })),
    fc
      .integer({ min: 1, max: Math.max(1, valid.length - 1) })
      .map((n) => ({ what: `JSON cut after ${n} bytes`, body: valid.subarray(0, n) })),
    deepNesting.map((raw) => ({ what: 'deeply nested top-level JSON', body: Buffer.from(raw.text) })),
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((bytes) => ({ what: 'random bytes with 0xFF', body: Buffer.concat([Buffer.from(bytes), Buffer.from([0xff])]) })),
  );
}

/** Content-Encoding headers with bodies that do not decode. */
export function badEncoding(valid: Buffer): fc.Arbitrary<{ what: string; body: Buffer; encoding: string }> {
  const gz = zlib.gzipSync(valid);
  return fc.oneof(
    fc
      .constantFrom('gzip', 'x-gzip', 'deflate', 'br')
      .map((encoding) => ({ what: `${encoding} that is not compressed`, body: valid, encoding })),
    fc
      .integer({ min: 1, max: gz.length - 1 })
      .map((n) => ({ what: `gzip cut after ${n} bytes`, body: gz.subarray(0, n), encoding: 'gzip' })),
    fc
      .constantFrom('compress', 'zstd', 'gzip, br', 'identity, gzip', 'unknown')
      .map((encoding) => ({ what: `Content-Encoding ${encoding}`, body: valid, encoding })),
  );
}

// ---------------------------------------------------------------------------------------------
// The database fingerprint

/** Tables whose rows a refused request may write by design. */
const EXEMPT_TABLES = new Set([
  // An Idempotency-Key keeps the answer to a client error (ingest/docs/api.md#idempotency).
  'idempotency_keys',
]);

export type Fingerprint = Map<string, string>;

/** Row count and a hash of every row of every table in the public schema. */
export async function fingerprint(db: Db): Promise<Fingerprint> {
  const tables = (
    await sql<{
      name: string;
    }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(
      db,
    )
  ).rows
    .map((r) => r.name)
    .filter((name) => !EXEMPT_TABLES.has(name));
  const union = tables
    .map(
      (name) =>
        `select '${name}' as name, count(*)::int as n, coalesce(md5(string_agg(md5(x::text), '' order by md5(x::text))), '') as h from "${name}" x`,
    )
    .join(' union all ');
  const { rows } = await sql.raw<{ name: string; n: number; h: string }>(union).execute(db);
  return new Map(rows.map((r) => [r.name, `${r.n} rows ${r.h}`]));
}

/** Tables whose rows differ between two fingerprints. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).map((n) => `${n}: ${before.get(n)} → ${after.get(n)}`);
}

export { getAt, pathText, setAt };
