/**
 * A record's id on its own page, the one place it is shown (ingest/README.md#how-to-add-a-dashboard-or-portal-page):
 * as code, with a button that copies it for whoever pastes it into an API call or a support ticket.
 */
export function RecordId({ id, copyLabel = 'Copy the id' }: { id: string; copyLabel?: string }) {
  return (
    <span class="record-id">
      <code>{id}</code>{' '}
      <button type="button" class="copy" data-copy={id}>
        {copyLabel}
      </button>
    </span>
  );
}
