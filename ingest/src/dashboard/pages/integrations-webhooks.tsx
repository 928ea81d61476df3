import type { Router } from 'express';
import type { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import type { Page } from '../../http/list.js';
import { ShownOnce } from '../../pages/components.js';
import { count, time } from '../../pages/format.js';
import { fromFields, manyValues } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import { EVENT_RESOURCES } from '../../resources/events/event-types.js';
import {
  DELIVERY_STATUSES,
  WebhookDeliveryListQuery,
  type WebhookDeliveryObject,
  WebhookEndpointCreate,
  type WebhookEndpointObject,
  WebhookEndpointUpdate,
} from '../../resources/webhook-endpoints/webhook-endpoints.schema.js';
import { toWebhookEndpoint } from '../../resources/webhook-endpoints/webhook-endpoints.serializer.js';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  requireEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../resources/webhook-endpoints/webhook-endpoints.service.js';
import type { ContextOf, PageContext } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { requireOwner } from '../session-auth.js';

const PAGE_SIZE = 25;

export const webhookNotices = {
  'webhook-saved': 'Webhook endpoint saved.',
  'webhook-paused': 'Webhook endpoint paused: nothing is queued for it until you enable it.',
  'webhook-enabled': 'Webhook endpoint enabled: new events are sent to it again.',
  'webhook-test-sent': 'Test event queued: its delivery shows in the log below within seconds (reload to see it).',
  'webhook-deleted': 'Webhook endpoint deleted. Its deliveries still due are not sent.',
};

export const endpointPath = (id: string) => `/dashboard/integrations/webhooks/${id}`;

type DeliveryFilters = Pick<z.output<typeof WebhookDeliveryListQuery>, 'status' | 'starting_after' | 'ending_before'>;

/** The endpoint form's fields as the API's body: checkboxes become the `events` array, an empty program is "every program". */
const endpointInput = (body: Record<string, unknown> | undefined) => ({
  url: typeof body?.url === 'string' ? body.url.trim() : body?.url,
  description: body?.description,
  events: manyValues(body?.events),
  program_id: body?.program_id,
});

export function registerWebhookPages(router: Router, { db, config, webhooks }: AppDeps, contextOf: ContextOf): void {
  const allowPrivate = config.webhooksAllowPrivate;
  const base = '/integrations/webhooks';

  async function render(res: Parameters<ContextOf>[0], endpointId: string, filters: DeliveryFilters = {}, secret?: string) {
    const ctx = await contextOf(res, 'integrations');
    const org = ctx.user.organization_id;
    const endpoint = toWebhookEndpoint(await requireEndpoint(db, org, endpointId));
    const deliveries = await listDeliveries(db, org, endpoint.id, { ...filters, limit: PAGE_SIZE });
    sendPage(res, <EndpointPage ctx={ctx} endpoint={endpoint} deliveries={deliveries} filters={filters} secret={secret} />);
  }

  router.post(base, requireOwner, async (req, res) => {
    const org = res.locals.user.organization_id as string;
    const input = fromFields(WebhookEndpointCreate, endpointInput(req.body), ['url', 'description', 'events', 'program_id'], 'body');
    const { endpoint, secret } = await createEndpoint(db, org, input, allowPrivate);
    // The secret is in this answer only: never in a URL, never cached (sendPage: no-store).
    await render(res, endpoint.id, {}, secret);
  });

  router.get(`${base}/:id`, requireOwner, async (req, res) => {
    const filters = fromFields(
      WebhookDeliveryListQuery,
      req.query,
      ['status', 'starting_after', 'ending_before'],
      'query',
    ) as DeliveryFilters;
    await render(res, req.params.id as string, filters);
  });

  router.post(`${base}/:id`, requireOwner, async (req, res) => {
    const org = res.locals.user.organization_id as string;
    const input = fromFields(WebhookEndpointUpdate, endpointInput(req.body), ['url', 'description', 'events', 'program_id'], 'body', [
      'description',
      'program_id',
    ]);
    const endpoint = await updateEndpoint(db, org, req.params.id as string, input, allowPrivate);
    res.redirect(303, `${endpointPath(endpoint.id)}?notice=webhook-saved`);
  });

  router.post(`${base}/:id/enabled`, requireOwner, async (req, res) => {
    const org = res.locals.user.organization_id as string;
    const enabled = req.body?.enabled === 'true';
    const endpoint = await updateEndpoint(db, org, req.params.id as string, { enabled }, allowPrivate);
    // Enabling again lets what waited for a disabled endpoint go out.
    if (enabled) webhooks.kick();
    res.redirect(303, `${endpointPath(endpoint.id)}?notice=${enabled ? 'webhook-enabled' : 'webhook-paused'}`);
  });

  router.post(`${base}/:id/rotate-secret`, requireOwner, async (req, res) => {
    const { endpoint, secret } = await rotateEndpointSecret(db, res.locals.user.organization_id as string, req.params.id as string);
    await render(res, endpoint.id, {}, secret);
  });

  router.post(`${base}/:id/test`, requireOwner, async (req, res) => {
    const delivery = await sendTestEvent(db, res.locals.user.organization_id as string, req.params.id as string);
    webhooks.kick();
    res.redirect(303, `${endpointPath(delivery.endpoint_id)}?notice=webhook-test-sent`);
  });

  router.post(`${base}/:id/delete`, requireOwner, async (req, res) => {
    await deleteEndpoint(db, res.locals.user.organization_id as string, req.params.id as string);
    res.redirect(303, '/dashboard/integrations?notice=webhook-deleted');
  });
}

/** enabled, paused (by the owner) or disabled (by svc, after 5 days of failures). */
export const endpointState = (e: Pick<WebhookEndpointObject, 'enabled' | 'disabled_at'>) =>
  e.enabled ? 'enabled' : e.disabled_at ? 'disabled' : 'paused';

/** An endpoint's event filters for people: `*` is every event. */
export const eventsLabel = (events: string[]) => (events.includes('*') ? 'every event' : events.join(', '));

export const programLabel = (ctx: PageContext, programId: string | null) =>
  programId === null ? 'All programs' : (ctx.programs.find((p) => p.id === programId)?.name ?? programId);

/** The fields of the endpoint form: URL, description, events, program. `idPrefix` keeps ids unique on a page. */
export function EndpointFields({ ctx, endpoint, idPrefix }: { ctx: PageContext; endpoint?: WebhookEndpointObject; idPrefix: string }) {
  const chosen = new Set(endpoint?.events ?? ['*']);
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <>
      <label for={id('url')}>Endpoint URL</label>
      <input
        id={id('url')}
        name="url"
        type="url"
        required
        maxlength={2048}
        value={endpoint?.url ?? ''}
        placeholder="https://example.com/svc/webhooks"
        aria-describedby={id('url-hint')}
      />
      <span id={id('url-hint')} class="hint">
        https, at a public address. Your receiver verifies each request's Standard Webhooks signature.
      </span>
      <label for={id('description')}>Description (optional)</label>
      <input id={id('description')} name="description" maxlength={500} value={endpoint?.description ?? ''} />
      <label for={id('program')}>Events of</label>
      <select id={id('program')} name="program_id">
        <option value="">All programs</option>
        {ctx.programs.map((p) => (
          <option value={p.id} selected={endpoint?.program_id === p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <fieldset class="event-filters">
        <legend>Event types</legend>
        <label class="check">
          <input type="checkbox" name="events" value="*" checked={chosen.has('*')} /> Every event
        </label>
        {Object.entries(EVENT_RESOURCES).map(([resource, { actions }]) => (
          <fieldset>
            <legend>{resource}</legend>
            <label class="check">
              <input type="checkbox" name="events" value={`${resource}.*`} checked={chosen.has(`${resource}.*`)} /> every {resource} event
            </label>
            {actions.map((action) => {
              const type = `${resource}.${action}`;
              return (
                <label class="check">
                  <input type="checkbox" name="events" value={type} checked={chosen.has(type)} /> <code>{type}</code>
                </label>
              );
            })}
          </fieldset>
        ))}
      </fieldset>
    </>
  );
}

/** The endpoints of the organization, and the form that adds one (the integrations page's section). */
export function EndpointList({ ctx, page, cursor }: { ctx: PageContext; page: Page<WebhookEndpointObject>; cursor: Cursor }) {
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook endpoints</h2>
      <p>
        svc posts every change to a partner, link, customer, transaction, commission or payout to your endpoints as a signed webhook
        (Standard Webhooks), retried for about 28 hours until your endpoint answers 2xx.
      </p>
      {page.rows.length === 0 ? (
        <p class="empty">No webhook endpoints yet. Add one below to receive events on your server.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Events</th>
                <th scope="col">Program</th>
                <th scope="col">Secret</th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((e) => {
                const state = endpointState(e);
                return (
                  <tr>
                    <th scope="row">
                      <a href={endpointPath(e.id)} class="url">
                        {e.url}
                      </a>
                      {e.description ? <span class="sub">{e.description}</span> : null}
                    </th>
                    <td>
                      <span class={`badge badge-${state}`}>{state}</span>
                      {e.failing_since && e.enabled ? <span class="sub">failing since {time(e.failing_since)}</span> : null}
                    </td>
                    <td>{eventsLabel(e.events)}</td>
                    <td>{programLabel(ctx, e.program_id)}</td>
                    <td>
                      <code>{e.redacted_secret}</code>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {page.total_count > 0 ? <Pager page={page} base="/dashboard/integrations" filters={{}} cursor={cursor} /> : null}
      <details class="add" open={page.rows.length === 0}>
        <summary class="button primary">Add an endpoint</summary>
        <form method="post" action="/dashboard/integrations/webhooks" class="stack">
          <Csrf ctx={ctx} />
          <EndpointFields ctx={ctx} idPrefix="new-endpoint" />
          <button type="submit" class="primary">
            Add endpoint
          </button>
        </form>
      </details>
    </section>
  );
}

function EndpointPage(props: {
  ctx: PageContext;
  endpoint: WebhookEndpointObject;
  deliveries: Page<WebhookDeliveryObject>;
  filters: DeliveryFilters;
  secret?: string;
}) {
  const { ctx, endpoint, deliveries, filters, secret } = props;
  const path = endpointPath(endpoint.id);
  const state = endpointState(endpoint);
  return (
    <Layout ctx={ctx} title="Webhook endpoint">
      <p class="crumbs">
        <a href="/dashboard/integrations">Integrations</a> /
      </p>
      <div class="page-head">
        <h1>
          Webhook endpoint <span class={`badge badge-${state}`}>{state}</span>
        </h1>
      </div>
      <p class="sub">
        <code class="url">{endpoint.url}</code>
        <br />
        {endpoint.description ? `${endpoint.description} · ` : ''}
        {programLabel(ctx, endpoint.program_id)} · {eventsLabel(endpoint.events)} · added {time(endpoint.created_at)}
      </p>

      {secret ? (
        <>
          <ShownOnce id="new-webhook-secret" secret={secret} copyLabel="Copy the secret">
            <strong>The signing secret of this endpoint.</strong> Copy it to your receiver now: it is shown this once.
          </ShownOnce>
          {endpoint.previous_secret_expires_at ? (
            <p class="muted">The previous secret keeps signing beside it until {time(endpoint.previous_secret_expires_at)}.</p>
          ) : null}
        </>
      ) : null}

      {state === 'disabled' ? (
        <p class="error">
          svc disabled this endpoint on {time(endpoint.disabled_at!)}: {endpoint.disabled_reason ?? 'every attempt failed for 5 days'}. Its
          deliveries wait for it: enable it to send them.
        </p>
      ) : endpoint.failing_since && endpoint.enabled ? (
        <p class="error">Every attempt since {time(endpoint.failing_since)} failed. After 5 days of failures svc disables the endpoint.</p>
      ) : null}

      <dl class="figures">
        <div class="figure">
          <dt>Signing secret</dt>
          <dd>
            <code>{endpoint.redacted_secret}</code>
          </dd>
        </div>
        {endpoint.previous_secret_expires_at ? (
          <div class="figure">
            <dt>Previous secret signs until</dt>
            <dd>{time(endpoint.previous_secret_expires_at)}</dd>
          </div>
        ) : null}
      </dl>

      <div class="actions">
        {endpoint.enabled ? (
          <form method="post" action={`${path}/test`} class="inline">
            <Csrf ctx={ctx} />
            <button type="submit" class="primary">
              Send a test event
            </button>
          </form>
        ) : null}
        <form method="post" action={`${path}/enabled`} class="inline">
          <Csrf ctx={ctx} />
          <input type="hidden" name="enabled" value={endpoint.enabled ? 'false' : 'true'} />
          <button type="submit">{endpoint.enabled ? 'Pause' : 'Enable'}</button>
        </form>
        <form method="post" action={`${path}/rotate-secret`} class="inline">
          <Csrf ctx={ctx} />
          <button type="submit" data-confirm="Rotate the signing secret? The current one keeps signing beside the new one for 24 hours.">
            Rotate secret
          </button>
        </form>
        <form method="post" action={`${path}/delete`} class="inline">
          <Csrf ctx={ctx} />
          <button
            type="submit"
            class="danger"
            data-confirm="Delete this endpoint? Nothing more is sent to it, deliveries still due included."
          >
            Delete
          </button>
        </form>
      </div>

      <details class="add">
        <summary class="button">Edit endpoint</summary>
        <form method="post" action={path} class="stack">
          <Csrf ctx={ctx} />
          <EndpointFields ctx={ctx} endpoint={endpoint} idPrefix="endpoint" />
          <button type="submit" class="primary">
            Save endpoint
          </button>
        </form>
      </details>

      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Delivery log</h2>
        <p class="muted">
          Each event sent to this endpoint, newest first, with every attempt. Only a 2xx answer counts; failures are retried after 5 s, 5
          min, 30 min, 2 h, 5 h, 10 h and 10 h.
        </p>
        <search>
          <form class="filters" method="get" action={path}>
            <label for="delivery-status">Status</label>
            <select id="delivery-status" name="status">
              <option value="">Any</option>
              {DELIVERY_STATUSES.map((s) => (
                <option value={s} selected={filters.status === s}>
                  {s}
                </option>
              ))}
            </select>
            <button type="submit">Filter</button>
          </form>
        </search>
        {deliveries.rows.length === 0 ? (
          <p class="empty">
            {filters.status
              ? 'No delivery matches this filter.'
              : 'Nothing sent yet. Events of changes made from now on are sent here; "Send a test event" sends one now.'}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data deliveries">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Attempts
                  </th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Queued</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.rows.map((d) => (
                  <DeliveryRow delivery={d} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={deliveries} base={path} filters={{ status: filters.status }} cursor={filters as Cursor} />
      </section>
    </Layout>
  );
}

type Attempt = WebhookDeliveryObject['attempts'][number];

/** Deliveries are retried within seconds: their times to the second. */
const seconds = (d: string) => `${d.slice(0, 19).replace('T', ' ')} UTC`;

/** The attempt's error, unless it only repeats the status code shown beside it ("HTTP 500"). */
function AttemptError({ attempt: a }: { attempt: Attempt }) {
  if (!a.error || a.error === `HTTP ${a.response_status}`) return null;
  return <span class="sub">{a.error}</span>;
}

const answerOf = (a: Attempt) => `${a.response_status !== null ? `HTTP ${a.response_status}` : 'no answer'} in ${count(a.duration_ms)} ms`;

function DeliveryRow({ delivery: d }: { delivery: WebhookDeliveryObject }) {
  const last = d.attempts[d.attempts.length - 1];
  return (
    <tr>
      <th scope="row">
        {d.event_type}
        <span class="sub">
          <code>{d.event_id}</code>
        </span>
      </th>
      <td>
        <span class={`badge badge-${d.status}`}>{d.status}</span>
        {d.status === 'pending' && d.next_attempt_at ? <span class="sub">next attempt {seconds(d.next_attempt_at)}</span> : null}
      </td>
      <td class="num">{count(d.attempt_count)}</td>
      <td>
        {last ? (
          <>
            {answerOf(last)}
            <AttemptError attempt={last} />
            <details class="attempts">
              <summary aria-label={`Every attempt of ${d.event_id}`}>Every attempt</summary>
              <ol>
                {d.attempts.map((a) => (
                  <li>
                    <span class={`badge badge-${a.status}`}>{a.status}</span> {seconds(a.created_at)}: {answerOf(a)}
                    <AttemptError attempt={a} />
                    {a.response_body ? (
                      <pre>
                        <code>{a.response_body}</code>
                      </pre>
                    ) : null}
                  </li>
                ))}
              </ol>
            </details>
          </>
        ) : (
          <span class="muted">not tried yet</span>
        )}
      </td>
      <td>{seconds(d.created_at)}</td>
    </tr>
  );
}
