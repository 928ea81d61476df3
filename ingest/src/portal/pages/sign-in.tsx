import type { ProgramRow } from '../../db/schema.js';
import { Field, FormRefusal } from '../../pages/fields.js';
import type { Refusal } from '../../pages/refusal.js';
import { SIGN_IN_LINK_MINUTES } from '../../resources/partner-access/partner-access.service.js';
import { PublicPage } from '../layout.js';

/** Sign-in by a one-time link sent to the partner's e-mail (ingest/docs/partner-portal.md); an address refused is said beside its field. */
export function SignInPage({ program, email, refusal = null }: { program: ProgramRow; email?: string; refusal?: Refusal | null }) {
  const base = `/p/${program.subdomain}`;
  return (
    <PublicPage program={program} title="Sign in">
      <h1>Sign in to your partner portal</h1>
      <p>Enter the e-mail address you joined with: we send you a link that signs you in.</p>
      <FormRefusal refusal={refusal} fields={['email']} />
      <form method="post" action={`${base}/sign-in`} class="stacked">
        <Field name="email" label="E-mail" type="email" autocomplete="email" required maxlength={254} value={email} refusal={refusal} />
        <button type="submit" class="primary">
          Send me a sign-in link
        </button>
      </form>
      {program.type === 'public' ? (
        <p class="hint">
          Not a partner yet? <a href={`${base}/join`}>Join the program</a>
        </p>
      ) : null}
    </PublicPage>
  );
}

export function CheckEmailPage({ program }: { program: ProgramRow }) {
  return (
    <PublicPage program={program} title="Check your e-mail">
      <h1>Check your e-mail</h1>
      <p role="status">
        If that address belongs to a partner of {program.name}, a sign-in link is on its way. It works once, within {SIGN_IN_LINK_MINUTES}{' '}
        minutes.
      </p>
      <p>
        <a href={`/p/${program.subdomain}/sign-in`}>Send another link</a>
      </p>
    </PublicPage>
  );
}

/**
 * The page a sign-in link opens: a button that uses it. Opening the link changes nothing, so the
 * link scanners of mail services, which open every link, do not use it up.
 */
export function UseLinkPage({ program, token }: { program: ProgramRow; token: string }) {
  return (
    <PublicPage program={program} title="Sign in">
      <h1>Sign in to your partner portal</h1>
      <form method="post" action={`/p/${program.subdomain}/sign-in/${token}`}>
        <button type="submit" class="primary" autofocus>
          Sign in
        </button>
      </form>
    </PublicPage>
  );
}

export function LinkUsedPage({ program }: { program: ProgramRow }) {
  return (
    <PublicPage program={program} title="Link expired">
      <h1>This link has expired</h1>
      <p role="alert">
        Sign-in links work once, within {SIGN_IN_LINK_MINUTES} minutes. This one was used already or is too old: ask for a new one.
      </p>
      <p>
        <a href={`/p/${program.subdomain}/sign-in`}>Send me a new link</a>
      </p>
    </PublicPage>
  );
}
