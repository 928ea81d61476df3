import type { ListParams, Page } from './list.js';

/** Rows read from SQL at a time by walkList: a few hundred, so a walk of any length holds about one page. */
export const WALK_PAGE_SIZE = 500;

/** A list's own parameters without the ones that choose a page. */
export type ListFilters<Query> = Omit<Query, 'limit' | 'starting_after' | 'ending_before'>;

/**
 * Every row of a filtered list, in the list's order, read through the list function the `/v1`
 * route calls (so each row is exactly the API's object) a page at a time: each page starts after
 * the last row of the one before (`starting_after`, the lists' keyset cursor), and the next page
 * is read only when the caller asks for the row after this page's last. A caller that stops
 * early reads no further page.
 */
export async function* walkList<Query extends ListParams, Row extends { id: string }>(
  list: (query: Query) => Promise<Page<Row>>,
  filters: ListFilters<Query>,
  pageSize = WALK_PAGE_SIZE,
): AsyncGenerator<Row> {
  let after: string | undefined;
  for (;;) {
    const page = await list({ ...filters, limit: pageSize, starting_after: after } as Query);
    yield* page.rows;
    if (!page.has_more || page.rows.length === 0) return;
    after = page.rows[page.rows.length - 1].id;
  }
}
