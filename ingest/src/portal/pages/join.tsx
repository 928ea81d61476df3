import type { ProgramRow } from '../../db/schema.js';
import { Field, FormRefusal, SelectField } from '../../pages/fields.js';
import type { FieldLabels, Refusal } from '../../pages/refusal.js';
import { PublicPage } from '../layout.js';
import { CountryField, NameFields, payoutLabel } from '../partner-fields.js';

/**
 * The name of the honeypot field: hidden from people, filled in by form-filling bots
 * (ingest/docs/partner-portal.md).
 */
export const HONEYPOT = 'website';

/** What the join form's fields are called, by the parameter each sets: a refusal naming one is shown beside it. */
export const JOIN_LABELS: FieldLabels = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'E-mail',
  country_code: 'Country',
  company_name: 'Company',
  payout_method: 'How you want to be paid',
  accept_terms: 'Terms',
};

/** The sign-up form of a public program (the page of a private one says it takes partners by invitation); a refusal beside its field, with what was typed. */
export function JoinPage({
  program,
  values = {},
  refusal = null,
}: {
  program: ProgramRow;
  values?: Record<string, string>;
  refusal?: Refusal | null;
}) {
  const base = `/p/${program.subdomain}`;
  if (program.type !== 'public') {
    return (
      <PublicPage program={program} title="Invitation only">
        <h1>Invitation only</h1>
        <p>
          The {program.name} partner program takes partners by invitation. If you were invited, sign in with the e-mail address you were
          invited with.
        </p>
        <p>
          <a href={`${base}/sign-in`}>Sign in</a>
        </p>
      </PublicPage>
    );
  }
  const methods = [...(program.payout_methods as string[]), 'none'].map((m) => [m, payoutLabel(m)] as const);
  const termsRefused = refusal?.field === 'accept_terms';
  return (
    <PublicPage program={program} title="Join">
      <h1>Become a {program.name} partner</h1>
      <p>
        Share your link and earn a commission on the customers you bring to {program.product_name}. Referrals are remembered for{' '}
        {program.cookie_duration} days.
        {program.auto_approve_partners ? ' You can start as soon as you join.' : ' The team looks at every application.'}
      </p>
      <FormRefusal refusal={refusal} fields={Object.keys(JOIN_LABELS)} />
      <form method="post" action={`${base}/join`} class="stacked">
        <NameFields first={values.first_name} last={values.last_name} refusal={refusal} />
        <Field
          name="email"
          label="E-mail"
          type="email"
          required
          maxlength={254}
          autocomplete="email"
          value={values.email}
          refusal={refusal}
        />
        <CountryField value={values.country_code} required refusal={refusal} />
        <Field
          name="company_name"
          label="Company (optional)"
          maxlength={200}
          autocomplete="organization"
          value={values.company_name}
          refusal={refusal}
        />
        <SelectField
          name="payout_method"
          label="How you want to be paid"
          required
          options={methods}
          value={values.payout_method ?? methods[0][0]}
          refusal={refusal}
        />
        <div class="honeypot" aria-hidden="true">
          <label for={HONEYPOT}>Leave this empty</label>
          <input id={HONEYPOT} name={HONEYPOT} tabindex={-1} autocomplete="off" />
        </div>
        {program.partner_terms ? (
          <>
            <h2 id="terms-heading">Terms</h2>
            <section class="terms" tabindex={0} aria-labelledby="terms-heading">
              {program.partner_terms.split(/\n{2,}/).map((p) => (
                <p>{p}</p>
              ))}
            </section>
            <label class="check">
              <input
                type="checkbox"
                name="accept_terms"
                required
                checked={values.accept_terms === 'on'}
                aria-invalid={termsRefused ? 'true' : undefined}
                aria-describedby={termsRefused ? 'accept_terms-error' : undefined}
              />{' '}
              I accept the terms of the {program.name} partner program
            </label>
            {termsRefused ? (
              <span class="field-error" id="accept_terms-error">
                {refusal.message}
              </span>
            ) : null}
          </>
        ) : null}
        <button type="submit" class="primary">
          Join
        </button>
      </form>
      <p class="hint">
        A partner already? <a href={`${base}/sign-in`}>Sign in</a>
      </p>
    </PublicPage>
  );
}

export function JoinedPage({ program, outcome }: { program: ProgramRow; outcome: 'applied' | 'approved' | 'already-a-partner' }) {
  return (
    <PublicPage program={program} title="Thank you">
      <h1>Thank you</h1>
      <p>
        {outcome === 'applied'
          ? `Your application is with the ${program.name} team. We have sent you an e-mail; you will hear from them.`
          : `We have sent you an e-mail. Sign in to your portal to get your link.`}
      </p>
      <p>
        <a href={`/p/${program.subdomain}/sign-in`}>Sign in to your portal</a>
      </p>
    </PublicPage>
  );
}
