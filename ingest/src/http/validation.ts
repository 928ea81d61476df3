import type { ZodType, z } from 'zod';
import { badRequest } from './errors.js';

/** Parses input with a schema; the first problem becomes a 400 naming the parameter. */
export function validate<T extends ZodType>(schema: T, input: unknown, where: 'body' | 'query'): z.output<T> {
  const proto = protoKeyIn(input);
  if (proto) throw badRequest(`Unknown ${where} parameter: ${proto}`, proto);
  // `reportInput` lets `describe` tell a missing parameter from one of the wrong type.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) {
    // The parsed value's depth is bounded by the schema, unlike the raw input's.
    rejectUnstorableText(result.data, []);
    return result.data;
  }
  const issue = result.error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => [...issue.path, k].join('.'));
    throw badRequest(`Unknown ${where === 'body' ? 'body' : 'query'} parameter${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`, keys[0]);
  }
  const param = issue.path.map(String).join('.');
  throw badRequest(param ? `Invalid ${param}: ${describe(issue)}` : `Invalid request ${where}: ${describe(issue)}`, param || undefined);
}

/**
 * The path of an own `__proto__` key in the input (JSON.parse makes one), if any. A strict object
 * reports it as unknown, but a record (`payout_details`) drops it without a word, so a request
 * carrying one would succeed as if it had not been sent. Iterative: the input is not yet bounded
 * by a schema.
 */
function protoKeyIn(input: unknown): string | null {
  const stack: [unknown, string[]][] = [[input, []]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Object.hasOwn(value, '__proto__')) return [...path, '__proto__'].join('.');
    for (const [key, child] of Object.entries(value)) stack.push([child, [...path, key]]);
  }
  return null;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text PostgreSQL cannot store as given is refused as the client's error, in values and keys:
 * U+0000 fails in SQL (a 500), and a lone surrogate (`"\ud800"` is valid JSON) is not a
 * character at all, so the driver would silently store U+FFFD in its place.
 */
export function rejectUnstorableText(input: unknown, path: (string | number)[]): void {
  if (typeof input === 'string') {
    const problem = input.includes('\u0000')
      ? 'NUL characters'
      : LONE_SURROGATE.test(input)
        ? 'unpaired surrogates (invalid UTF-16)'
        : null;
    if (problem) {
      const param = path.join('.');
      throw badRequest(`Invalid ${param || 'request'}: must not contain ${problem}`, param || undefined);
    }
  } else if (Array.isArray(input)) {
    for (const [i, v] of input.entries()) rejectUnstorableText(v, [...path, i]);
  } else if (input !== null && typeof input === 'object') {
    for (const [k, v] of Object.entries(input)) {
      rejectUnstorableText(k, [...path, k]);
      rejectUnstorableText(v, [...path, k]);
    }
  }
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'this parameter is required';
  return issue.message.replace(/^Invalid input: /, '');
}
