import { DashboardDocument } from '../layout.js';

export function SignInPage({ email, error, next }: { email?: string; error?: string; next?: string }) {
  return (
    <DashboardDocument title="Sign in">
      <main id="main" class="narrow sign-in">
        <h1>Sign in to svc</h1>
        {error ? (
          <p class="error" role="alert" id="sign-in-error">
            {error}
          </p>
        ) : null}
        <form method="post" action="/dashboard/sign-in">
          {next ? <input type="hidden" name="next" value={next} /> : null}
          <label for="email">E-mail</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email ?? ''}
            aria-describedby={error ? 'sign-in-error' : undefined}
          />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        <p class="hint">
          No account yet? The owner of your organization adds users; the first owner's password is printed by <code>npm start</code> on a
          new database, or made with <code>svc users create</code>.
        </p>
      </main>
    </DashboardDocument>
  );
}
