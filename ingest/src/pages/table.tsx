import type { Children } from './render.js';

/**
 * The data table of every list of the dashboard and the portal: a caption for screen readers,
 * column heads, the first cell as the row's header, numbers right-aligned, an empty state in words,
 * and optional checkboxes that choose rows for a bulk form (ingest/README.md#how-to-add-a-dashboard-or-portal-page).
 */
export interface Column<T> {
  /** The column's head. */
  head: Children;
  cell: (row: T) => Children;
  /** A figure: right-aligned, in tabular digits. */
  numeric?: boolean;
  /** Left out when false (a column only some views show). */
  when?: boolean;
}

export interface RowChoice<T> {
  /** The bulk form's id (`form` attribute of each checkbox) and the field name of the chosen ids. */
  form: string;
  name: string;
  value: (row: T) => string;
  /** What choosing this row means, for screen readers ("Choose Emma Stone"). */
  label: (row: T) => string;
  /** What choosing every row means ("Choose every partner on this page"). */
  allLabel: string;
  /** Whether the row is chosen already (a refused bulk form shown again keeps what was chosen). */
  checked?: (row: T) => boolean;
}

export function DataTable<T>({
  caption,
  columns,
  rows,
  empty,
  choose,
}: {
  /** What the table lists, read by screen readers (visually hidden: the page's heading shows it). */
  caption: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  /** What to say when there is no row. */
  empty: Children;
  choose?: RowChoice<T>;
}) {
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  const shown = columns.filter((c) => c.when !== false);
  return (
    // A table wider than a phone scrolls sideways in its wrapper, which keyboards must reach (focusable, named).
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is a table's scrolling frame, and a region would repeat its section's landmark
    <div class="table-wrap" role="group" aria-label={caption} tabindex={0}>
      <table class="data">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {choose ? (
              <th scope="col" class="check">
                <input type="checkbox" data-select-all={choose.name} form={choose.form} aria-label={choose.allLabel} />
              </th>
            ) : null}
            {shown.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {choose ? (
                <td class="check">
                  <input
                    type="checkbox"
                    name={choose.name}
                    value={choose.value(row)}
                    form={choose.form}
                    aria-label={choose.label(row)}
                    checked={choose.checked?.(row)}
                  />
                </td>
              ) : null}
              {shown.map((c, i) =>
                i === 0 ? (
                  <th scope="row" class={c.numeric ? 'num' : undefined}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td class={c.numeric ? 'num' : undefined}>{c.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
