import { z, type ZodType } from 'zod';
import { badRequest } from './errors.js';

/** Parses input with a schema; the first problem becomes a 400 naming the parameter. */
export function validate<T extends ZodType>(schema: T, input: unknown, where: 'body' | 'query'): z.output<T> {
  // `reportInput` lets `describe` tell a missing parameter from one of the wrong type.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) {
    // The parsed value's depth is bounded by the schema, unlike the raw input's.
    rejectNul(result.data, []);
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
 * PostgreSQL text cannot hold U+0000; such a string would fail in SQL with a 500, so it is
 * refused here as the client's error.
 */
export function rejectNul(input: unknown, path: (string | number)[]): void {
  if (typeof input === 'string') {
    if (input.includes('\u0000')) {
      const param = path.join('.');
      throw badRequest(`Invalid ${param || 'request'}: must not contain NUL characters`, param || undefined);
    }
  } else if (Array.isArray(input)) {
    input.forEach((v, i) => rejectNul(v, [...path, i]));
  } else if (input !== null && typeof input === 'object') {
    for (const [k, v] of Object.entries(input)) {
      rejectNul(k, [...path, k]);
      rejectNul(v, [...path, k]);
    }
  }
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'this parameter is required';
  return issue.message.replace(/^Invalid input: /, '');
}
