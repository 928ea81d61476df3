/** Small pieces every section draws alike. */

/** A status as a coloured label (`badge-<status>` in dashboard.css): "partially_refunded" reads "partially refunded". */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>;
}
