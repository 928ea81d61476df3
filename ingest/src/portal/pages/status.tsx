import type { PortalContext } from '../context.js';
import { PortalLayout } from '../layout.js';

/** All a partner who is not active sees: where they stand, and why when the program said. */
export function StatusPage({ ctx }: { ctx: PortalContext }) {
  const { partner, program } = ctx;
  const heading =
    partner.status === 'pending'
      ? 'Your application is being reviewed'
      : partner.status === 'rejected'
        ? 'Your application was declined'
        : 'Your partnership is suspended';
  const reason = partner.status === 'rejected' ? partner.rejection_note : partner.status === 'suspended' ? partner.suspension_reason : null;
  return (
    <PortalLayout ctx={ctx} title={heading}>
      <h1>{heading}</h1>
      <p role="status" data-partner-status={partner.status}>
        {partner.status === 'pending'
          ? `Thank you for applying to the ${program.name} partner program. The team will write to you at ${partner.email} once they have decided; your links and earnings appear here when you are approved.`
          : partner.status === 'rejected'
            ? `The ${program.name} team did not approve your application.`
            : `The ${program.name} team has suspended your partnership: your links earn no commission while it lasts.`}
      </p>
      {reason ? (
        <p>
          <strong>Their note:</strong> {reason}
        </p>
      ) : null}
      <p>Questions? Reply to any e-mail of the program.</p>
    </PortalLayout>
  );
}
