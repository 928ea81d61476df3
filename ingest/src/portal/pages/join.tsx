import type { ProgramRow } from '../../db/schema.js';
import { PublicPage } from '../layout.js';
import { CountryOptions, payoutLabel } from '../payout-fields.js';

/**
 * The name of the honeypot field: hidden from people, filled in by form-filling bots
 * (ingest/docs/partner-portal.md).
 */
export const HONEYPOT = 'website';

export function JoinPage({ program, values = {}, error }: { program: ProgramRow; values?: Record<string, string>; error?: string }) {
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
  const methods = [...(program.payout_methods as string[]), 'none'];
  return (
    <PublicPage program={program} title="Join">
      <h1>Become a {program.name} partner</h1>
      <p>
        Share your link and earn a commission on the customers you bring to {program.product_name}. Referrals are remembered for{' '}
        {program.cookie_duration} days.
        {program.auto_approve_partners ? ' You can start as soon as you join.' : ' The team looks at every application.'}
      </p>
      {error ? (
        <p class="error" role="alert" id="join-error">
          {error}
        </p>
      ) : null}
      <form method="post" action={`${base}/join`} class="stacked">
        <label for="first_name">First name</label>
        <input id="first_name" name="first_name" required maxlength={100} autocomplete="given-name" value={values.first_name ?? ''} />
        <label for="last_name">Last name</label>
        <input id="last_name" name="last_name" required maxlength={100} autocomplete="family-name" value={values.last_name ?? ''} />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" required maxlength={254} autocomplete="email" value={values.email ?? ''} />
        <label for="country_code">Country</label>
        <select id="country_code" name="country_code" required autocomplete="country">
          <CountryOptions selected={values.country_code} />
        </select>
        <label for="company_name">Company (optional)</label>
        <input id="company_name" name="company_name" maxlength={200} autocomplete="organization" value={values.company_name ?? ''} />
        <label for="payout_method">How you want to be paid</label>
        <select id="payout_method" name="payout_method" required>
          {methods.map((m) => (
            <option value={m} selected={m === (values.payout_method ?? methods[0])}>
              {payoutLabel(m)}
            </option>
          ))}
        </select>
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
              <input type="checkbox" name="accept_terms" required checked={values.accept_terms === 'on'} /> I accept the terms of the{' '}
              {program.name} partner program
            </label>
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
