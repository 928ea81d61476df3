import type { Response, Router } from 'express';
import { z } from 'zod';
import type { UserRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { emailField, shortText } from '../../http/fields.js';
import { ShownOnce } from '../../pages/components.js';
import { Field, FormRefusal, SelectField, type Typed, typedText } from '../../pages/fields.js';
import { day } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { ApiKeyCreate, type ApiKeyObject } from '../../resources/api-keys/api-keys.schema.js';
import { toApiKey } from '../../resources/api-keys/api-keys.serializer.js';
import { allApiKeys, createApiKey, revokeApiKey } from '../../resources/api-keys/api-keys.service.js';
import { createUser, listUsers, USER_ROLES } from '../../resources/users/users.service.js';
import type { ContextOf, PageContext } from '../context.js';
import { IntegrationsLayout, integrationsPath } from '../integrations-layout.js';
import { Csrf, scriptTag } from '../layout.js';
import { requireOwner } from '../session-auth.js';

/**
 * The Integrations tabs of the organization itself (ingest/docs/dashboard.md#integrations): the
 * script tag of each program, the secret API keys and the dashboard's users. Stripe and webhooks
 * have a module each (integrations-*.tsx), registered by the router beside this one.
 */

const UserCreate = z.strictObject({ email: emailField, name: shortText(100).optional(), role: z.enum(USER_ROLES) });

export const integrationNotices = {
  'key-revoked': 'API key revoked. Requests with it are refused from now on.',
};

const KEY_LABELS = { name: 'Name' };
const USER_LABELS = { email: 'E-mail', name: 'Name', role: 'Role' };

/** A form of a tab refused, with what was typed in it. */
interface Refused {
  refusal: Refusal;
  typed: Typed;
}

export function registerIntegrationPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, store } = deps;

  // The one page Integrations was before its tabs: its address opens the first tab.
  router.get('/integrations', requireOwner, (_req, res) => res.redirect(303, integrationsPath('/script-tag')));

  router.get('/integrations/script-tag', requireOwner, async (_req, res) => {
    sendPage(res, <ScriptTagTab ctx={await contextOf(res, 'integrations')} />);
  });

  async function keysTab(res: Response, shown?: { key: ApiKeyObject; secret: string }, refused?: Refused) {
    const ctx = await contextOf(res, 'integrations');
    const keys = await allApiKeys(db, ctx.user.organization_id);
    sendPage(res, <ApiKeysTab ctx={ctx} keys={keys} shown={shown} refused={refused} />, refused?.refusal.status);
  }

  router.get('/integrations/api-keys', requireOwner, (_req, res) => keysTab(res));

  router.post('/integrations/api-keys', requireOwner, async (req, res) => {
    let made: { key: ApiKeyObject; secret: string } | undefined;
    await orRefused(
      async () => {
        const input = fromFields(ApiKeyCreate, req.body, ['name'], 'body');
        const { key, secret } = await createApiKey(db, res.locals.user.organization_id, input.name ?? null, store);
        made = { key: toApiKey(key), secret };
      },
      KEY_LABELS,
      (refusal) => keysTab(res, undefined, { refusal, typed: req.body ?? {} }),
    );
    // The secret is on this answer only: never in a URL, never cached.
    if (made) await keysTab(res, made);
  });

  router.post('/integrations/api-keys/:keyId/revoke', requireOwner, async (req, res) => {
    await orRefused(
      async () => {
        await revokeApiKey(db, store, res.locals.user.organization_id, req.params.keyId as string);
        res.redirect(303, integrationsPath('/api-keys', '?notice=key-revoked'));
      },
      {},
      (refusal) => keysTab(res, undefined, { refusal, typed: {} }),
    );
  });

  async function usersTab(res: Response, shown?: { user: UserRow; password: string }, refused?: Refused) {
    const ctx = await contextOf(res, 'integrations');
    const users = await listUsers(db, ctx.user.organization_id);
    sendPage(res, <UsersTab ctx={ctx} users={users} shown={shown} refused={refused} />, refused?.refusal.status);
  }

  router.get('/integrations/users', requireOwner, (_req, res) => usersTab(res));

  router.post('/integrations/users', requireOwner, async (req, res) => {
    let made: { user: UserRow; password: string } | undefined;
    await orRefused(
      async () => {
        const input = fromFields(UserCreate, req.body, ['email', 'name', 'role'], 'body');
        made = await createUser(db, res.locals.user.organization_id, input);
      },
      USER_LABELS,
      // The one conflict here is an e-mail that already signs in.
      (refusal) =>
        usersTab(res, undefined, { refusal: refusal.status === 409 ? { ...refusal, field: 'email' } : refusal, typed: req.body ?? {} }),
    );
    if (made) await usersTab(res, made);
  });
}

function ScriptTagTab({ ctx }: { ctx: PageContext }) {
  return (
    <IntegrationsLayout ctx={ctx} tab="/script-tag">
      <p>Paste it into the &lt;head&gt; of every page of the program's site. It records partners' clicks and your signups.</p>
      {ctx.programs.length === 0 ? <p class="empty">No programs yet.</p> : null}
      {ctx.programs.map((p) => {
        const tag = scriptTag(ctx.publicUrl, p.public_key);
        return (
          <div class="snippet">
            <h2>{p.name}</h2>
            <pre>
              <code id={`tag-${p.id}`}>{tag}</code>
            </pre>
            <button type="button" class="copy" data-copy={tag} aria-label={`Copy the tag of ${p.name}`}>
              Copy the tag
            </button>
          </div>
        );
      })}
    </IntegrationsLayout>
  );
}

function ApiKeysTab({
  ctx,
  keys,
  shown,
  refused,
}: {
  ctx: PageContext;
  keys: ApiKeyObject[];
  shown?: { key: ApiKeyObject; secret: string };
  refused?: Refused;
}) {
  const once = shown ? (
    <ShownOnce id="new-secret" secret={shown.secret} copyLabel="Copy the key">
      <strong>Your new key{shown.key.name ? ` “${shown.key.name}”` : ''}.</strong> Copy it now: it is shown this once.
    </ShownOnce>
  ) : null;
  return (
    <IntegrationsLayout ctx={ctx} tab="/api-keys" once={once}>
      <p>
        Secret keys are for your server only (<code>Authorization: Bearer sk_…</code>): never put one in a page. The API reference is at{' '}
        <a href="/docs">/docs</a>.
      </p>
      <DataTable
        caption="Secret API keys"
        rows={keys}
        empty="No active keys."
        columns={[
          { head: 'Name', cell: (k) => k.name ?? 'Unnamed key' },
          { head: 'Key', cell: (k) => <code>{k.redacted_key}</code> },
          { head: 'Created', cell: (k) => day(k.created_at) },
          {
            head: <span class="visually-hidden">Actions</span>,
            cell: (k) =>
              keys.length > 1 ? (
                <form method="post" action={integrationsPath('/api-keys', `/${k.id}/revoke`)} class="inline">
                  <Csrf ctx={ctx} />
                  <button
                    type="submit"
                    class="danger"
                    aria-label={`Revoke ${k.name ?? k.redacted_key}`}
                    data-confirm={`Revoke ${k.name ?? k.redacted_key}? Requests with it fail at once.`}
                  >
                    Revoke
                  </button>
                </form>
              ) : (
                <span class="muted">Last key: create another to revoke it</span>
              ),
          },
        ]}
      />
      <h2 id="new-key-title">Create a key</h2>
      <form method="post" action={integrationsPath('/api-keys')} class="stack" aria-labelledby="new-key-title">
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refused?.refusal} fields={['name']} />
        <Field
          name="name"
          id="key-name"
          label="Name"
          hint="What the key is for, e.g. Production server (optional)."
          maxlength={100}
          value={typedText(refused?.typed, 'name')}
          refusal={refused?.refusal}
        />
        <button type="submit" class="primary">
          Create a key
        </button>
      </form>
    </IntegrationsLayout>
  );
}

function UsersTab({
  ctx,
  users,
  shown,
  refused,
}: {
  ctx: PageContext;
  users: UserRow[];
  shown?: { user: UserRow; password: string };
  refused?: Refused;
}) {
  const once = shown ? (
    <ShownOnce id="new-password" secret={shown.password} copyLabel="Copy the password">
      <strong>{shown.user.email}</strong> can sign in at <code>/dashboard</code> with this password, shown this once:
    </ShownOnce>
  ) : null;
  const typed = refused?.typed;
  return (
    <IntegrationsLayout ctx={ctx} tab="/users" once={once}>
      <p>Owners manage keys, integrations and users; members run the program (partners, commissions) but cannot open Integrations.</p>
      <DataTable
        caption="Users"
        rows={users}
        empty="No users."
        columns={[
          { head: 'E-mail', cell: (u) => u.email },
          { head: 'Name', cell: (u) => u.name ?? '' },
          { head: 'Role', cell: (u) => u.role },
          { head: 'Added', cell: (u) => day(u.created_at) },
        ]}
      />
      <h2 id="new-user-title">Add a user</h2>
      <form method="post" action={integrationsPath('/users')} class="stack" aria-labelledby="new-user-title">
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refused?.refusal} fields={Object.keys(USER_LABELS)} />
        <Field
          name="email"
          id="user-email"
          label="E-mail"
          type="email"
          required
          maxlength={254}
          autocomplete="off"
          value={typedText(typed, 'email')}
          refusal={refused?.refusal}
        />
        <Field
          name="name"
          id="user-name"
          label="Name (optional)"
          maxlength={100}
          value={typedText(typed, 'name')}
          refusal={refused?.refusal}
        />
        <SelectField
          name="role"
          id="user-role"
          label="Role"
          value={typedText(typed, 'role', 'member')}
          options={[
            ['member', 'Member: runs the program'],
            ['owner', 'Owner: also manages Integrations'],
          ]}
          refusal={refused?.refusal}
        />
        <button type="submit" class="primary">
          Add user
        </button>
      </form>
    </IntegrationsLayout>
  );
}
