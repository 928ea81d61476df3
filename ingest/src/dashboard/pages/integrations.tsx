import type { Router } from 'express';
import { z } from 'zod';
import type { UserRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { emailField, shortText } from '../../http/fields.js';
import type { Page } from '../../http/list.js';
import { ShownOnce } from '../../pages/components.js';
import { day } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import type { Cursor } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import { ApiKeyCreate, type ApiKeyObject } from '../../resources/api-keys/api-keys.schema.js';
import { toApiKey } from '../../resources/api-keys/api-keys.serializer.js';
import { allApiKeys, createApiKey, revokeApiKey } from '../../resources/api-keys/api-keys.service.js';
import type { StripeIntegrationObject } from '../../resources/stripe/stripe.schema.js';
import { retrieveStripeIntegration } from '../../resources/stripe/stripe.service.js';
import { createUser, listUsers, USER_ROLES } from '../../resources/users/users.service.js';
import { WebhookEndpointListQuery, type WebhookEndpointObject } from '../../resources/webhook-endpoints/webhook-endpoints.schema.js';
import { listEndpoints } from '../../resources/webhook-endpoints/webhook-endpoints.service.js';
import type { ContextOf, PageContext } from '../context.js';
import { Csrf, Layout, scriptTag } from '../layout.js';
import { requireOwner } from '../session-auth.js';
import { registerStripePages, StripeSummary, stripeNotices } from './integrations-stripe.js';
import { EndpointList, registerWebhookPages, webhookNotices } from './integrations-webhooks.js';

const UserCreate = z.strictObject({ email: emailField, name: shortText(100).optional(), role: z.enum(USER_ROLES) });

export const integrationNotices = {
  'key-revoked': 'API key revoked. Requests with it are refused from now on.',
  ...stripeNotices,
  ...webhookNotices,
};

const ENDPOINTS_PAGE_SIZE = 25;

/** What was just made and is shown this once: a new key's secret, a new user's password. */
type Once = { kind: 'key'; key: ApiKeyObject; secret: string } | { kind: 'user'; user: UserRow; password: string };

export function registerIntegrationPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, store } = deps;
  const base = '/integrations';

  async function render(res: Parameters<ContextOf>[0], once?: Once, cursor: Cursor = {}) {
    const ctx = await contextOf(res, 'integrations');
    const org = ctx.user.organization_id;
    const [keys, users, stripe, endpoints] = await Promise.all([
      allApiKeys(db, org),
      listUsers(db, org),
      Promise.all(ctx.programs.map((p) => retrieveStripeIntegration(db, org, p.id, ctx.publicUrl))),
      listEndpoints(db, org, { ...cursor, limit: ENDPOINTS_PAGE_SIZE }),
    ]);
    sendPage(
      res,
      <IntegrationsPage ctx={ctx} keys={keys} users={users} once={once} stripe={stripe} endpoints={endpoints} cursor={cursor} />,
    );
  }

  router.get(base, requireOwner, (req, res) =>
    render(res, undefined, fromFields(WebhookEndpointListQuery, req.query, ['starting_after', 'ending_before'], 'query') as Cursor),
  );

  router.post(`${base}/api-keys`, requireOwner, async (req, res) => {
    const input = fromFields(ApiKeyCreate, req.body, ['name'], 'body');
    const { key, secret } = await createApiKey(db, res.locals.user.organization_id, input.name ?? null, store);
    // The secret is on this page only: never in a URL, never cached.
    await render(res, { kind: 'key', key: toApiKey(key), secret });
  });

  router.post(`${base}/api-keys/:keyId/revoke`, requireOwner, async (req, res) => {
    await revokeApiKey(db, store, res.locals.user.organization_id, req.params.keyId as string);
    res.redirect(303, '/dashboard/integrations?notice=key-revoked');
  });

  router.post(`${base}/users`, requireOwner, async (req, res) => {
    const input = fromFields(UserCreate, req.body, ['email', 'name', 'role'], 'body');
    const { user, password } = await createUser(db, res.locals.user.organization_id, input);
    await render(res, { kind: 'user', user, password });
  });

  registerStripePages(router, deps, contextOf);
  registerWebhookPages(router, deps, contextOf);
}

function IntegrationsPage(props: {
  ctx: PageContext;
  keys: ApiKeyObject[];
  users: UserRow[];
  once?: Once;
  stripe: StripeIntegrationObject[];
  endpoints: Page<WebhookEndpointObject>;
  cursor: Cursor;
}) {
  const { ctx, keys, users, once, stripe, endpoints, cursor } = props;
  return (
    <Layout ctx={ctx} title="Integrations">
      <div class="page-head">
        <h1>Integrations</h1>
      </div>

      <section aria-labelledby="script-title">
        <h2 id="script-title">The script tag</h2>
        <p>Paste it into the &lt;head&gt; of every page of the program's site. It records partners' clicks and your signups.</p>
        {ctx.programs.map((p) => {
          const tag = scriptTag(ctx.publicUrl, p.public_key);
          return (
            <div class="snippet">
              <h3>{p.name}</h3>
              <pre>
                <code id={`tag-${p.id}`}>{tag}</code>
              </pre>
              <button type="button" class="copy" data-copy={tag}>
                Copy the tag
              </button>
            </div>
          );
        })}
      </section>

      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Secret API keys</h2>
        <p>
          For your server only (<code>Authorization: Bearer sk_…</code>): never put one in a page. The API reference is at{' '}
          <a href="/docs">/docs</a>.
        </p>
        {once?.kind === 'key' ? (
          <ShownOnce id="new-secret" secret={once.secret} copyLabel="Copy the key">
            <strong>Your new key{once.key.name ? ` “${once.key.name}”` : ''}.</strong> Copy it now: it is shown this once.
          </ShownOnce>
        ) : null}
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr>
                  <th scope="row">{k.name ?? 'Unnamed key'}</th>
                  <td>
                    <code>{k.redacted_key}</code>
                  </td>
                  <td>{day(k.created_at)}</td>
                  <td>
                    {keys.length > 1 ? (
                      <form method="post" action={`/dashboard/integrations/api-keys/${k.id}/revoke`} class="inline">
                        <Csrf ctx={ctx} />
                        <button
                          type="submit"
                          class="danger"
                          data-confirm={`Revoke ${k.name ?? k.redacted_key}? Requests with it fail at once.`}
                        >
                          Revoke
                        </button>
                      </form>
                    ) : (
                      <span class="muted">Last key: create another to revoke it</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <form method="post" action="/dashboard/integrations/api-keys" class="row">
          <Csrf ctx={ctx} />
          <label for="key-name">Name</label>
          <input id="key-name" name="name" maxlength={100} placeholder="e.g. Production server" />
          <button type="submit">Create a key</button>
        </form>
      </section>

      <StripeSummary ctx={ctx} states={stripe} />

      <EndpointList ctx={ctx} page={endpoints} cursor={cursor} />

      <section aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        <p>Owners manage keys, integrations and users; members run the program (partners, commissions) but cannot open this page.</p>
        {once?.kind === 'user' ? (
          <ShownOnce id="new-password" secret={once.password} copyLabel="Copy the password">
            <strong>{once.user.email}</strong> can sign in at <code>/dashboard</code> with this password, shown this once:
          </ShownOnce>
        ) : null}
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr>
                  <th scope="row">{u.email}</th>
                  <td>{u.name ?? ''}</td>
                  <td>{u.role}</td>
                  <td>{day(u.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <form method="post" action="/dashboard/integrations/users" class="row">
          <Csrf ctx={ctx} />
          <label for="user-email">E-mail</label>
          <input id="user-email" name="email" type="email" required maxlength={254} />
          <label for="user-name">Name</label>
          <input id="user-name" name="name" maxlength={100} />
          <label for="user-role">Role</label>
          <select id="user-role" name="role">
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
          <button type="submit">Add user</button>
        </form>
      </section>
    </Layout>
  );
}
