import type { Response, Router } from 'express';
import type { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import type { Page } from '../../http/list.js';
import { ShownOnce, StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal, SelectField } from '../../pages/fields.js';
import { count, time } from '../../pages/format.js';
import { fromFields, manyValues } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { RecordId } from '../../pages/record-id.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { EVENT_RESOURCES } from '../../resources/events/event-types.js';
import {
  DELIVERY_STATUSES,
  WebhookDeliveryListQuery,
  type WebhookDeliveryObject,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  type WebhookEndpointObject,
  WebhookEndpointUpdate,
} from '../../resources/webhook-endpoints/webhook-endpoints.schema.js';
import { toWebhookEndpoint } from '../../resources/webhook-endpoints/webhook-endpoints.serializer.js';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  requireEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../resources/webhook-endpoints/webhook-endpoints.service.js';
import type { ContextOf, PageContext } from '../context.js';
import { endpointPath, IntegrationsLayout, integrationsPath } from '../integrations-layout.js';
import { Csrf } from '../layout.js';
import { requireOwner } from '../session-auth.js';

/**
 * The Webhooks tab of Integrations (ingest/docs/webhooks.md): the organization's endpoints and the
 * form that adds one, and an endpoint's page with its actions and delivery log. A new or rotated
 * signing secret is shown once, at the top of the endpoint's page.
 */

const PAGE_SIZE = 25;

export const webhookNotices = {
  'webhook-saved': 'Webhook endpoint saved.',
  'webhook-paused': 'Webhook endpoint paused: nothing is queued for it until you enable it.',
  'webhook-enabled': 'Webhook endpoint enabled: new events are sent to it again.',
  'webhook-test-sent': 'Test event queued: its delivery shows in the log below within seconds (reload to see it).',
  'webhook-deleted': 'Webhook endpoint deleted. Its deliveries still due are not sent.',
};

type DeliveryFilters = Pick<z.output<typeof WebhookDeliveryListQuery>, 'status' | 'starting_after' | 'ending_before'>;

/** The endpoint form's fields, as the form shows them: typed, or of the endpoint. */
interface EndpointValues {
  url: string;
  description: string;
  events: string[];
  program_id: string;
}

const ENDPOINT_LABELS = { url: 'Endpoint URL', description: 'Description', events: 'Event types', program_id: 'Events of' };
const ENDPOINT_FIELDS = Object.keys(ENDPOINT_LABELS);

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** What the endpoint form sent, as it shows it again: checkboxes are the chosen `events`. */
const typedEndpoint = (body: Record<string, unknown> | undefined): EndpointValues => ({
  url: text(body?.url).trim(),
  description: text(body?.description),
  events: manyValues(body?.events),
  program_id: text(body?.program_id),
});

const endpointValues = (e: WebhookEndpointObject): EndpointValues => ({
  url: e.url,
  description: e.description ?? '',
  events: e.events,
  program_id: e.program_id ?? '',
});

/** A form of the tab refused: its message, and what was typed when it was the endpoint form. */
interface Refused {
  refusal: Refusal;
  values?: EndpointValues;
}

export function registerWebhookPages(router: Router, { db, config, webhooks }: AppDeps, contextOf: ContextOf): void {
  const allowPrivate = config.webhooksAllowPrivate;
  const base = '/integrations/webhooks';

  async function listTab(res: Response, cursor: Cursor, refused?: Refused) {
    const ctx = await contextOf(res, 'integrations');
    const page = await listEndpoints(db, ctx.user.organization_id, { ...cursor, limit: PAGE_SIZE });
    sendPage(res, <WebhooksTab ctx={ctx} page={page} cursor={cursor} refused={refused} />, refused?.refusal.status);
  }

  async function endpointPage(
    res: Response,
    endpointId: string,
    options: { filters?: DeliveryFilters; secret?: string; refused?: Refused },
  ) {
    const ctx = await contextOf(res, 'integrations');
    const org = ctx.user.organization_id;
    const endpoint = toWebhookEndpoint(await requireEndpoint(db, org, endpointId));
    const filters = options.filters ?? {};
    const deliveries = await listDeliveries(db, org, endpoint.id, { ...filters, limit: PAGE_SIZE });
    sendPage(
      res,
      <EndpointPage
        ctx={ctx}
        endpoint={endpoint}
        deliveries={deliveries}
        filters={filters}
        secret={options.secret}
        refused={options.refused}
      />,
      options.refused?.refusal.status,
    );
  }

  router.get(base, requireOwner, async (req, res) => {
    await listTab(res, fromFields(WebhookEndpointListQuery, req.query, ['starting_after', 'ending_before'], 'query') as Cursor);
  });

  router.post(base, requireOwner, async (req, res) => {
    let made: { id: string; secret: string } | undefined;
    await orRefused(
      async () => {
        const values = typedEndpoint(req.body);
        const input = fromFields(WebhookEndpointCreate, values, ENDPOINT_FIELDS, 'body');
        const { endpoint, secret } = await createEndpoint(db, res.locals.user.organization_id as string, input, allowPrivate);
        made = { id: endpoint.id, secret };
      },
      ENDPOINT_LABELS,
      (refusal) => listTab(res, {}, { refusal, values: typedEndpoint(req.body) }),
    );
    // The secret is in this answer only: never in a URL, never cached (sendPage: no-store).
    if (made) await endpointPage(res, made.id, { secret: made.secret });
  });

  router.get(`${base}/:id`, requireOwner, async (req, res) => {
    const filters = fromFields(
      WebhookDeliveryListQuery,
      req.query,
      ['status', 'starting_after', 'ending_before'],
      'query',
    ) as DeliveryFilters;
    await endpointPage(res, req.params.id as string, { filters });
  });

  router.post(`${base}/:id`, requireOwner, async (req, res) => {
    const id = req.params.id as string;
    await orRefused(
      async () => {
        const input = fromFields(WebhookEndpointUpdate, typedEndpoint(req.body), ENDPOINT_FIELDS, 'body', ['description', 'program_id']);
        const endpoint = await updateEndpoint(db, res.locals.user.organization_id as string, id, input, allowPrivate);
        res.redirect(303, `${endpointPath(endpoint.id)}?notice=webhook-saved`);
      },
      ENDPOINT_LABELS,
      (refusal) => endpointPage(res, id, { refused: { refusal, values: typedEndpoint(req.body) } }),
    );
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
    await endpointPage(res, endpoint.id, { secret });
  });

  router.post(`${base}/:id/test`, requireOwner, async (req, res) => {
    const id = req.params.id as string;
    await orRefused(
      async () => {
        const delivery = await sendTestEvent(db, res.locals.user.organization_id as string, id);
        webhooks.kick();
        res.redirect(303, `${endpointPath(delivery.endpoint_id)}?notice=webhook-test-sent`);
      },
      {},
      // A paused endpoint takes no test: said at the top of its page.
      (refusal) => endpointPage(res, id, { refused: { refusal } }),
    );
  });

  router.post(`${base}/:id/delete`, requireOwner, async (req, res) => {
    await deleteEndpoint(db, res.locals.user.organization_id as string, req.params.id as string);
    res.redirect(303, integrationsPath('/webhooks', '?notice=webhook-deleted'));
  });
}

/** enabled, paused (by the owner) or disabled (by svc, after 5 days of failures). */
const endpointState = (e: Pick<WebhookEndpointObject, 'enabled' | 'disabled_at'>) =>
  e.enabled ? 'enabled' : e.disabled_at ? 'disabled' : 'paused';

/** An endpoint's event filters for people: `*` is every event. */
const eventsLabel = (events: string[]) => (events.includes('*') ? 'every event' : events.join(', '));

const programLabel = (ctx: PageContext, programId: string | null) =>
  programId === null ? 'All programs' : (ctx.programs.find((p) => p.id === programId)?.name ?? programId);

/** The fields of the endpoint form: URL, description, program, events. `idPrefix` keeps ids unique on a page. */
function EndpointFields({
  ctx,
  values,
  refusal,
  idPrefix,
}: {
  ctx: PageContext;
  values: EndpointValues;
  refusal?: Refusal;
  idPrefix: string;
}) {
  const chosen = new Set(values.events);
  const id = (name: string) => `${idPrefix}-${name}`;
  const eventsWrong = refusal?.field === 'events';
  return (
    <>
      <FormRefusal refusal={refusal} fields={ENDPOINT_FIELDS} />
      <Field
        name="url"
        id={id('url')}
        label="Endpoint URL"
        type="url"
        required
        maxlength={2048}
        value={values.url}
        placeholder="https://example.com/svc/webhooks"
        hint="https, at a public address. Your receiver verifies each request's Standard Webhooks signature."
        refusal={refusal}
      />
      <Field
        name="description"
        id={id('description')}
        label="Description (optional)"
        maxlength={500}
        value={values.description}
        refusal={refusal}
      />
      <SelectField
        name="program_id"
        id={id('program')}
        label="Events of"
        value={values.program_id}
        options={[['', 'All programs'], ...ctx.programs.map((p) => [p.id, p.name] as const)]}
        refusal={refusal}
      />
      <fieldset class="event-filters" aria-describedby={eventsWrong ? id('events-error') : undefined}>
        <legend>Event types</legend>
        {eventsWrong ? (
          <span class="field-error" id={id('events-error')}>
            {refusal.message}
          </span>
        ) : null}
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

/** The Webhooks tab: the organization's endpoints, and the form that adds one (open when there is none, or it was refused). */
function WebhooksTab({
  ctx,
  page,
  cursor,
  refused,
}: {
  ctx: PageContext;
  page: Page<WebhookEndpointObject>;
  cursor: Cursor;
  refused?: Refused;
}) {
  return (
    <IntegrationsLayout ctx={ctx} tab="/webhooks">
      <p>
        svc posts every change to a partner, link, customer, transaction, commission or payout to your endpoints as a signed webhook
        (Standard Webhooks), retried for about 28 hours until your endpoint answers 2xx.
      </p>
      <DataTable
        caption="Webhook endpoints"
        rows={page.rows}
        empty="No webhook endpoints yet. Add one below to receive events on your server."
        columns={[
          {
            head: 'Endpoint',
            cell: (e) => (
              <>
                <a href={endpointPath(e.id)} class="url">
                  {e.url}
                </a>
                {e.description ? <span class="sub">{e.description}</span> : null}
              </>
            ),
          },
          {
            head: 'Status',
            cell: (e) => (
              <>
                <StatusBadge status={endpointState(e)} />
                {e.failing_since && e.enabled ? <span class="sub">failing since {time(e.failing_since)}</span> : null}
              </>
            ),
          },
          { head: 'Events', cell: (e) => eventsLabel(e.events) },
          { head: 'Program', cell: (e) => programLabel(ctx, e.program_id) },
          { head: 'Secret', cell: (e) => <code>{e.redacted_secret}</code> },
        ]}
      />
      {page.total_count > 0 ? <Pager page={page} base={integrationsPath('/webhooks')} filters={{}} cursor={cursor} /> : null}
      <details class="add" open={page.rows.length === 0 || refused !== undefined}>
        <summary class="button primary">Add an endpoint</summary>
        <form method="post" action={integrationsPath('/webhooks')} class="stack" aria-label="Add an endpoint">
          <Csrf ctx={ctx} />
          <EndpointFields
            ctx={ctx}
            values={refused?.values ?? { url: '', description: '', events: ['*'], program_id: '' }}
            refusal={refused?.refusal}
            idPrefix="new-endpoint"
          />
          <button type="submit" class="primary">
            Add endpoint
          </button>
        </form>
      </details>
    </IntegrationsLayout>
  );
}

function EndpointPage(props: {
  ctx: PageContext;
  endpoint: WebhookEndpointObject;
  deliveries: Page<WebhookDeliveryObject>;
  filters: DeliveryFilters;
  secret?: string;
  refused?: Refused;
}) {
  const { ctx, endpoint, deliveries, filters, secret, refused } = props;
  const path = endpointPath(endpoint.id);
  const state = endpointState(endpoint);
  const once = secret ? (
    <>
      <ShownOnce id="new-webhook-secret" secret={secret} copyLabel="Copy the secret">
        <strong>The signing secret of this endpoint.</strong> Copy it to your receiver now: it is shown this once.
      </ShownOnce>
      {endpoint.previous_secret_expires_at ? (
        <p class="muted">The previous secret keeps signing beside it until {time(endpoint.previous_secret_expires_at)}.</p>
      ) : null}
    </>
  ) : null;
  return (
    <IntegrationsLayout ctx={ctx} tab="/webhooks" title="Webhook endpoint" once={once}>
      <p class="crumbs">
        <a href={integrationsPath('/webhooks')}>Webhooks</a> /
      </p>
      <h2>
        Webhook endpoint <StatusBadge status={state} />
      </h2>
      <p class="sub">
        <code class="url">{endpoint.url}</code>
        <br />
        {endpoint.description ? `${endpoint.description} · ` : ''}
        {programLabel(ctx, endpoint.program_id)} · {eventsLabel(endpoint.events)} · added {time(endpoint.created_at)}
      </p>
      {refused && !refused.values ? <FormRefusal refusal={refused.refusal} /> : null}

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
        <div class="figure">
          <dt>Endpoint id</dt>
          <dd>
            <RecordId id={endpoint.id} copyLabel="Copy the endpoint id" />
          </dd>
        </div>
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

      <details class="add" open={refused?.values !== undefined}>
        <summary class="button">Edit endpoint</summary>
        <form method="post" action={path} class="stack" aria-label="Edit endpoint">
          <Csrf ctx={ctx} />
          <EndpointFields ctx={ctx} values={refused?.values ?? endpointValues(endpoint)} refusal={refused?.refusal} idPrefix="endpoint" />
          <button type="submit" class="primary">
            Save endpoint
          </button>
        </form>
      </details>

      <section aria-labelledby="deliveries-title" class="subsection">
        <h3 id="deliveries-title">Delivery log</h3>
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
        <DataTable
          caption="Deliveries"
          rows={deliveries.rows}
          empty={
            filters.status
              ? 'No delivery matches this filter.'
              : 'Nothing sent yet. Events of changes made from now on are sent here; "Send a test event" sends one now.'
          }
          columns={[
            {
              head: 'Event',
              cell: (d) => (
                <>
                  {d.event_type}{' '}
                  <button type="button" class="copy" data-copy={d.event_id} aria-label={`Copy the id of this ${d.event_type} event`}>
                    Copy id
                  </button>
                </>
              ),
            },
            {
              head: 'Status',
              cell: (d) => (
                <>
                  <StatusBadge status={d.status} />
                  {d.status === 'pending' && d.next_attempt_at ? <span class="sub">next attempt {seconds(d.next_attempt_at)}</span> : null}
                </>
              ),
            },
            { head: 'Attempts', numeric: true, cell: (d) => count(d.attempt_count) },
            { head: 'Last answer', cell: (d) => <Attempts delivery={d} /> },
            { head: 'Queued', cell: (d) => seconds(d.created_at) },
          ]}
        />
        <Pager page={deliveries} base={path} filters={{ status: filters.status }} cursor={filters as Cursor} />
      </section>
    </IntegrationsLayout>
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

/** A delivery's last answer, and every attempt under it. */
function Attempts({ delivery: d }: { delivery: WebhookDeliveryObject }) {
  const last = d.attempts[d.attempts.length - 1];
  if (!last) return <span class="muted">not tried yet</span>;
  return (
    <>
      {answerOf(last)}
      <AttemptError attempt={last} />
      <details class="attempts">
        <summary aria-label={`Every attempt of the ${d.event_type} event queued ${seconds(d.created_at)}`}>Every attempt</summary>
        <ol>
          {d.attempts.map((a) => (
            <li>
              <StatusBadge status={a.status} /> {seconds(a.created_at)}: {answerOf(a)}
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
  );
}
