import type { Page } from './list.js';

/**
 * The success bodies of the Partnership Program API (README.md#the-api-specification):
 * create/update → array of one; retrieve → the object; delete → {id, deleted}.
 */
export const envelope = {
  one: <T>(data: T) => ({ success: true as const, data }),
  many: <T>(item: T) => ({ success: true as const, data: [item] }),
  deleted: (id: string) => ({ success: true as const, data: { id, deleted: true as const } }),
  list: <R, T>(page: Page<R>, map: (row: R) => T) => ({
    success: true as const,
    data: page.rows.map(map),
    has_more: page.has_more,
    total_count: page.total_count,
  }),
};
