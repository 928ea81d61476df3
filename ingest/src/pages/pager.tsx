import type { Page } from '../http/list.js';

export interface Cursor {
  starting_after?: string;
  ending_before?: string;
}

/**
 * Cursor links of a list page, newest first (the API's own cursors), keeping the page's filters.
 * `has_more` tells whether there is more in the direction the page was read.
 */
export function Pager({
  page,
  base,
  filters,
  cursor,
}: {
  page: Page<{ id: string }>;
  base: string;
  filters: Record<string, string | undefined>;
  cursor: Cursor;
}) {
  const rows = page.rows;
  const href = (to: Cursor) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...to })) if (v) params.set(k, v);
    return `${base}?${params}`;
  };
  const backwards = cursor.ending_before !== undefined;
  const newer = rows.length > 0 && (backwards ? page.has_more : cursor.starting_after !== undefined);
  const older = rows.length > 0 && (backwards || page.has_more);
  return (
    <nav class="pager" aria-label="Pages">
      <span>{page.total_count} in all</span>
      {newer ? <a href={href({ ending_before: rows[0].id })}>← Newer</a> : null}
      {older ? <a href={href({ starting_after: rows[rows.length - 1].id })}>Older →</a> : null}
    </nav>
  );
}

/** Numbered pages of a ranked list (by offset): the page's filters kept, `page` counted from 1. */
export function NumberedPager({
  page,
  base,
  filters,
  at,
}: {
  page: Page<unknown>;
  base: string;
  filters: Record<string, string | undefined>;
  at: number;
}) {
  const href = (n: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v);
    if (n > 1) params.set('page', String(n));
    return `${base}?${params}`;
  };
  return (
    <nav class="pager" aria-label="Pages">
      <span>{page.total_count} in all</span>
      {at > 1 ? <a href={href(at - 1)}>← Previous</a> : null}
      {page.has_more ? <a href={href(at + 1)}>Next →</a> : null}
    </nav>
  );
}
