import type { Children } from './render.js';

/** Small pieces every section draws alike. */

/** A status as a coloured label (`badge-<status>` in dashboard.css): "partially_refunded" reads "partially refunded". */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

/**
 * A secret shown this once (a new API key, password or signing secret), with its copy button:
 * it is on the answer of the form that made it, never in a URL.
 */
export function ShownOnce({ id, secret, copyLabel, children }: { id: string; secret: string; copyLabel: string; children: Children }) {
  return (
    <div class="once" role="status">
      <p>{children}</p>
      <pre>
        <code id={id}>{secret}</code>
      </pre>
      <button type="button" class="copy" data-copy={secret}>
        {copyLabel}
      </button>
    </div>
  );
}
