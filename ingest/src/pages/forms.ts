import type { ZodType, z } from 'zod';
import { validate } from '../http/validation.js';

/**
 * A form's or a page URL's fields, read through the API's own schema: the dashboard has no rules
 * of its own. Only the named fields are taken (the CSRF token, a notice … are not the
 * resource's); an empty field is a field left out, or `null` where the form means "clear it".
 */
export function fromFields<T extends ZodType>(
  schema: T,
  source: unknown,
  fields: readonly string[],
  where: 'body' | 'query',
  clearable: readonly string[] = [],
): z.output<T> {
  const given = (source ?? {}) as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const value = given[field];
    if (value === undefined) continue;
    if (value === '') {
      if (clearable.includes(field)) input[field] = null;
      continue;
    }
    input[field] = value;
  }
  return validate(schema, input, where);
}

/** Repeated form fields (checkboxes) as an array of strings. */
export const manyValues = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
