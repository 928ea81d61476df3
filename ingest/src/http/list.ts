import { type SelectQueryBuilder, sql } from 'kysely';
import { type ZodRawShape, z } from 'zod';
import { badRequest } from './errors.js';
import { idField, timestampField } from './fields.js';

/** `expand[]`/`include[]` style parameter: one value or several, each from a fixed set. */
export function multiValue<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .union([z.enum(values), z.array(z.enum(values)).max(values.length * 2)], { error: `must be one or more of: ${values.join(', ')}` })
    .transform((v): T[number][] => [...new Set(Array.isArray(v) ? v : [v])])
    .meta({ description: `One or more of: ${values.join(', ')}` });
}

const limitField = z
  .string()
  .regex(/^\d+$/, 'must be an integer between 1 and 100')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be an integer between 1 and 100').max(100, 'must be an integer between 1 and 100'));

/** The list parameters every list endpoint shares (ingest/docs/api.md#lists). */
export const listParams = {
  limit: limitField.optional().meta({ description: 'Page size, 1–100 (default 10)' }),
  starting_after: idField.optional().meta({ description: 'Cursor: an id; returns the items after it in list order' }),
  ending_before: idField.optional().meta({ description: 'Cursor: an id; returns the items just before it, still in list order' }),
  order: z.enum(['asc', 'desc']).optional().meta({ description: 'By created_at (default desc)' }),
  created_gte: timestampField.optional(),
  created_lte: timestampField.optional(),
};

export type ListParams = {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
  order?: 'asc' | 'desc';
  created_gte?: Date;
  created_lte?: Date;
};

/** A strict list query: the shared parameters plus the endpoint's own filters. */
export function listQuery<S extends ZodRawShape>(shape: S) {
  return z.strictObject({ ...listParams, ...shape }).refine((q) => !((q as ListParams).starting_after && (q as ListParams).ending_before), {
    message: 'starting_after and ending_before cannot be used together',
    path: ['ending_before'],
  });
}

export interface Page<Row> {
  rows: Row[];
  has_more: boolean;
  total_count: number;
}

/** Query parameters that shape a page without narrowing what total_count counts. */
const NOT_FILTERS = new Set(['program_id', 'limit', 'starting_after', 'ending_before', 'order', 'expand', 'include']);

/** Whether a list query narrows the program's rows (any filter besides the program itself). */
export function narrowsList(query: object): boolean {
  return Object.entries(query).some(([key, value]) => value !== undefined && !NOT_FILTERS.has(key));
}

/**
 * Runs a list query: `base` must already hold the caller's scope and filters and select the
 * row. Ordering is by (created_at, id); the count ignores cursors and limit. `params` is the
 * whole list query: when nothing in it narrows the program's rows, `programTotal` (a kept
 * counter) answers total_count instead of counting them.
 */
export async function paginate<Row>(
  // biome-ignore lint/suspicious/noExplicitAny: any table's list query; only its output row is typed
  base: SelectQueryBuilder<any, any, Row>,
  params: ListParams,
  columns: { createdAt: string; id: string },
  programTotal?: () => Promise<number>,
): Promise<Page<Row>> {
  const createdAt = sql.ref(columns.createdAt);
  const id = sql.ref(columns.id);
  let scoped = base;
  if (params.created_gte) scoped = scoped.where(createdAt, '>=', params.created_gte);
  if (params.created_lte) scoped = scoped.where(createdAt, '<=', params.created_lte);

  const limit = params.limit ?? 10;
  const order = params.order ?? 'desc';
  const cursorId = params.starting_after ?? params.ending_before;
  const backwards = Boolean(params.ending_before);
  // Walking backwards reads the opposite direction, then flips the page into list order.
  const readOrder = backwards === (order === 'desc') ? 'asc' : 'desc';

  let page = scoped;
  if (cursorId) {
    const cursor = (await scoped
      .clearSelect()
      .select([createdAt.as('c'), id.as('i')])
      .where(id, '=', cursorId)
      .executeTakeFirst()) as { c: Date; i: string } | undefined;
    if (!cursor) {
      throw badRequest(`No such object in this list: '${cursorId}'`, params.starting_after ? 'starting_after' : 'ending_before');
    }
    const op = readOrder === 'asc' ? '>' : '<';
    page = page.where(sql<boolean>`(${createdAt}, ${id}) ${sql.raw(op)} (${cursor.c}, ${cursor.i})`);
  }

  const countRows = async () =>
    ((await scoped.clearSelect().clearOrderBy().select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()) as { n: number }).n;
  const [rows, total_count] = await Promise.all([
    page
      .orderBy(createdAt, readOrder)
      .orderBy(id, readOrder)
      .limit(limit + 1)
      .execute(),
    programTotal && !narrowsList(params) ? programTotal() : countRows(),
  ]);
  const has_more = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  if (backwards) pageRows.reverse();
  return { rows: pageRows as Row[], has_more, total_count };
}
