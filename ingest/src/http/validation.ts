import { z, type ZodType } from 'zod';
import { badRequest } from './errors.js';

/** Parses input with a schema; the first problem becomes a 400 naming the parameter. */
export function validate<T extends ZodType>(schema: T, input: unknown, where: 'body' | 'query'): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => [...issue.path, k].join('.'));
    throw badRequest(`Unknown ${where === 'body' ? 'body' : 'query'} parameter${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`, keys[0]);
  }
  const param = issue.path.map(String).join('.');
  throw badRequest(param ? `Invalid ${param}: ${describe(issue)}` : `Invalid request ${where}: ${describe(issue)}`, param || undefined);
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'this parameter is required';
  return issue.message.replace(/^Invalid input: /, '');
}
