import type { Response, Router } from 'express';
import type { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import type { Page } from '../../http/list.js';
import { StatusBadge } from '../../pages/components.js';
import { Field, FormRefusal } from '../../pages/fields.js';
import { count, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import {
  STRIPE_EVENT_STATUSES,
  StripeConnect,
  StripeEventListQuery,
  type StripeEventObject,
  type StripeIntegrationObject,
} from '../../resources/stripe/stripe.schema.js';
import { connectStripe, disconnectStripe, listStripeEvents, retrieveStripeIntegration } from '../../resources/stripe/stripe.service.js';
import { OPTIONAL_EVENT_TYPES } from '../../resources/stripe/stripe-event-handlers.js';
import { type ContextOf, type PageContext, type ProgramPageContext, programPath } from '../context.js';
import { IntegrationsLayout, integrationsPath, stripePath } from '../integrations-layout.js';
import { Csrf } from '../layout.js';
import { requireOwner } from '../session-auth.js';

/**
 * The Stripe tab of Integrations (ingest/docs/stripe.md): each program's connection, and a
 * program's page with the URL and events to paste into Stripe, the signing secret's form and the
 * event log.
 */

const PAGE_SIZE = 25;

export const stripeNotices = {
  'stripe-connected': 'Stripe connected. The events Stripe sends to the URL below are checked with the signing secret you saved.',
  'stripe-saved': 'Stripe settings saved.',
  'stripe-disconnected': 'Stripe disconnected: its events are refused from now on. The events and customers recorded stay.',
};

type EventFilters = Pick<z.output<typeof StripeEventListQuery>, 'status' | 'type' | 'starting_after' | 'ending_before'>;

/** How an event reads in the log: an ignored event that waits for another is "waiting". */
export const eventState = (e: Pick<StripeEventObject, 'status' | 'waiting_for'>) =>
  e.status === 'ignored' && e.waiting_for && e.waiting_for.length > 0 ? 'waiting' : e.status;

/** The connect form refused: the option as it was ticked. */
interface Refused {
  refusal: Refusal;
  tax: boolean;
}

const CONNECT_LABELS = { webhook_secret: 'Signing secret', tax_counts_as_revenue: 'Tax counts as revenue' };

export function registerStripePages(router: Router, { db }: AppDeps, contextOf: ContextOf): void {
  router.get('/integrations/stripe', requireOwner, async (_req, res) => {
    const ctx = await contextOf(res, 'integrations');
    const states = await Promise.all(ctx.programs.map((p) => retrieveStripeIntegration(db, ctx.user.organization_id, p.id, ctx.publicUrl)));
    sendPage(res, <StripeTab ctx={ctx} states={states} />);
  });

  /** A program's Stripe page; after a refused form, that form again with the option as ticked. */
  async function programPage(res: Response, ctx: ProgramPageContext, query: unknown, refused?: Refused) {
    const filters = fromFields(StripeEventListQuery, query, ['status', 'type', 'starting_after', 'ending_before'], 'query') as EventFilters;
    const org = ctx.user.organization_id;
    const [integration, events] = await Promise.all([
      retrieveStripeIntegration(db, org, ctx.program.id, ctx.publicUrl),
      listStripeEvents(db, org, ctx.program.id, { ...filters, limit: PAGE_SIZE }),
    ]);
    sendPage(
      res,
      <StripePage ctx={ctx} integration={integration} events={events} filters={filters} refused={refused} />,
      refused?.refusal.status,
    );
  }

  router.get('/integrations/stripe/:programId', requireOwner, async (req, res) => {
    await programPage(res, await contextOf(res, 'integrations', req.params.programId as string), req.query);
  });

  router.post('/integrations/stripe/:programId', requireOwner, async (req, res) => {
    const ctx = await contextOf(res, 'integrations', req.params.programId as string);
    const program = ctx.program;
    const tax = req.body?.tax_counts_as_revenue === 'on';
    await orRefused(
      async () => {
        const secret = typeof req.body?.webhook_secret === 'string' ? req.body.webhook_secret.trim() : undefined;
        const input = fromFields(
          StripeConnect,
          { webhook_secret: secret, tax_counts_as_revenue: tax },
          Object.keys(CONNECT_LABELS),
          'body',
        );
        const before = await retrieveStripeIntegration(db, ctx.user.organization_id, program.id, ctx.publicUrl);
        await connectStripe(db, ctx.user.organization_id, program.id, input, ctx.publicUrl);
        // The secret is never shown again, nor put in the URL: the page shows it redacted.
        res.redirect(303, `${stripePath(program.id)}?notice=${before.connected ? 'stripe-saved' : 'stripe-connected'}`);
      },
      CONNECT_LABELS,
      // What was typed as the secret is not written back into the page: it may be another secret pasted by mistake.
      (refusal) => programPage(res, ctx, {}, { refusal, tax }),
    );
  });

  router.post('/integrations/stripe/:programId/disconnect', requireOwner, async (req, res) => {
    const ctx = await contextOf(res, 'integrations', req.params.programId as string);
    await disconnectStripe(db, ctx.user.organization_id, ctx.program.id);
    res.redirect(303, `${stripePath(ctx.program.id)}?notice=stripe-disconnected`);
  });
}

/** The events to select in Stripe, one a line (what the copy button copies). */
const eventList = (types: string[]) => types.join('\n');

const ConnectionBadge = ({ connected }: { connected: boolean }) => (
  <span class={`badge badge-${connected ? 'connected' : 'disconnected'}`}>{connected ? 'connected' : 'not connected'}</span>
);

/** The Stripe tab: each program's connection, with the way to its page. */
function StripeTab({ ctx, states }: { ctx: PageContext; states: StripeIntegrationObject[] }) {
  return (
    <IntegrationsLayout ctx={ctx} tab="/stripe">
      <p>
        Connect a program to Stripe and svc records its payments, renewals, refunds and cancellations from Stripe's events, with no code of
        yours.
      </p>
      <DataTable
        caption="Stripe connection of each program"
        rows={ctx.programs.map((p) => ({ program: p, state: states.find((s) => s.program_id === p.id) }))}
        empty="No programs yet."
        columns={[
          { head: 'Program', cell: ({ program }) => program.name },
          {
            head: 'Connection',
            cell: ({ state }) =>
              state?.connected ? (
                <>
                  <ConnectionBadge connected /> <span class="sub">secret {state.webhook_secret}</span>
                </>
              ) : (
                <ConnectionBadge connected={false} />
              ),
          },
          {
            head: 'Events',
            numeric: true,
            cell: ({ state }) => count(state ? STRIPE_EVENT_STATUSES.reduce((n, k) => n + state.event_counts[k], 0) : 0),
          },
          { head: 'Last event', cell: ({ state }) => (state?.last_event_at ? time(state.last_event_at) : '—') },
          {
            head: <span class="visually-hidden">Actions</span>,
            cell: ({ program, state }) => (
              <a href={stripePath(program.id)} aria-label={`${state?.connected ? 'Manage Stripe' : 'Connect Stripe'} for ${program.name}`}>
                {state?.connected ? 'Manage and event log' : 'Connect Stripe'}
              </a>
            ),
          },
        ]}
      />
    </IntegrationsLayout>
  );
}

function StripePage(props: {
  ctx: ProgramPageContext;
  integration: StripeIntegrationObject;
  events: Page<StripeEventObject>;
  filters: EventFilters;
  refused?: Refused;
}) {
  const { ctx, integration, events, filters, refused } = props;
  const program = ctx.program;
  const base = stripePath(program.id);
  const counts = integration.event_counts;
  return (
    <IntegrationsLayout ctx={ctx} tab="/stripe" title={`Stripe for ${program.name}`}>
      <p class="crumbs">
        <a href={integrationsPath('/stripe')}>Stripe</a> /
      </p>
      <h2>
        Stripe for {program.name} <ConnectionBadge connected={integration.connected} />
      </h2>
      <p class="sub">
        svc reads Stripe's webhook events and records this program's leads, payments, renewals, refunds and cancellations itself: no
        payment-reporting code on your server.
      </p>

      {integration.connected ? (
        <dl class="figures">
          <div class="figure">
            <dt>Signing secret</dt>
            <dd>
              <code>{integration.webhook_secret}</code>
            </dd>
          </div>
          <div class="figure">
            <dt>Connected</dt>
            <dd>{integration.connected_at ? time(integration.connected_at) : '—'}</dd>
          </div>
          <div class="figure">
            <dt>Last event</dt>
            <dd>{integration.last_event_at ? time(integration.last_event_at) : 'none yet'}</dd>
          </div>
          <div class="figure">
            <dt>Events received</dt>
            <dd>{STRIPE_EVENT_STATUSES.map((s) => `${count(counts[s])} ${s}`).join(' · ')}</dd>
          </div>
        </dl>
      ) : null}

      <section aria-labelledby="stripe-setup-title" class="subsection">
        <h3 id="stripe-setup-title">{integration.connected ? 'The Stripe webhook endpoint' : 'Connect Stripe'}</h3>
        <ol class="steps">
          <li>
            <p>
              In Stripe's dashboard (Developers → Webhooks → Add endpoint), paste this <strong>endpoint URL</strong>. It takes no API key:
              Stripe signs each event.
            </p>
            <pre>
              <code id="stripe-webhook-url">{integration.webhook_url}</code>
            </pre>
            <button type="button" class="copy" data-copy={integration.webhook_url}>
              Copy the URL
            </button>
          </li>
          <li>
            <p>Select these events to send:</p>
            <ul class="event-types" id="stripe-events">
              {integration.events_to_enable.map((type) => (
                <li>
                  <code>{type}</code>
                </li>
              ))}
            </ul>
            <button type="button" class="copy" data-copy={eventList(integration.events_to_enable)}>
              Copy the event list
            </button>
            <p class="muted">
              Optional:{' '}
              {OPTIONAL_EVENT_TYPES.map((t) => (
                <code>{t}</code>
              ))}
              , only if your own code takes one-off payments outside Checkout and invoices (it does not tell the tax, so leave it off with
              Checkout and Stripe Tax).
            </p>
          </li>
          <li>
            <p>
              {integration.connected
                ? 'After rolling the secret in Stripe, save the new one here. Leave the field empty to change only the option.'
                : 'Copy the endpoint’s signing secret from Stripe (Reveal, whsec_…) and save it here. It is never shown again.'}
            </p>
            <form method="post" action={base} class="stack">
              <Csrf ctx={ctx} />
              <FormRefusal refusal={refused?.refusal} fields={['webhook_secret']} />
              <Field
                name="webhook_secret"
                label={`Signing secret${integration.connected ? ' (new one, optional)' : ''}`}
                type="password"
                autocomplete="off"
                required={!integration.connected}
                maxlength={210}
                placeholder="whsec_…"
                hint="Stored to check Stripe's signatures; shown from now on only as whsec_… and its last four characters."
                refusal={refused?.refusal}
              />
              <label class="check">
                <input type="checkbox" name="tax_counts_as_revenue" checked={refused ? refused.tax : integration.tax_counts_as_revenue} />{' '}
                Tax Stripe collects counts as revenue (commissions are paid on it)
              </label>
              <button type="submit" class="primary">
                {integration.connected ? 'Save' : 'Connect Stripe'}
              </button>
            </form>
          </li>
          <li>
            <p>
              Put the click on the checkout: svc.js does it for Payment Links, pricing tables and buy buttons (<code>data-stripe</code> on
              the script tag); a checkout session your server creates takes <code>client_reference_id: window.svc_data.click_id</code>.
            </p>
          </li>
        </ol>
        {integration.connected ? (
          <form method="post" action={`${base}/disconnect`} class="row">
            <Csrf ctx={ctx} />
            <button
              type="submit"
              class="danger"
              data-confirm="Disconnect Stripe? svc forgets the signing secret and refuses Stripe's events from now on."
            >
              Disconnect Stripe
            </button>
            <span class="muted">The events and customers recorded stay; connecting again carries on.</span>
          </form>
        ) : null}
      </section>

      <section aria-labelledby="stripe-events-title" class="subsection">
        <h3 id="stripe-events-title">Event log</h3>
        <p class="muted">Every Stripe event received, newest first, with what it did: why a payment did or did not make a commission.</p>
        <search>
          <form class="filters" method="get" action={base}>
            <label for="event-status">Outcome</label>
            <select id="event-status" name="status">
              <option value="">Any</option>
              {STRIPE_EVENT_STATUSES.map((s) => (
                <option value={s} selected={filters.status === s}>
                  {s}
                </option>
              ))}
            </select>
            <label for="event-type">Type</label>
            <input id="event-type" name="type" value={filters.type ?? ''} maxlength={100} placeholder="e.g. invoice.paid" />
            <button type="submit">Filter</button>
          </form>
        </search>
        <DataTable
          caption="Stripe events"
          rows={events.rows}
          empty={
            filters.status || filters.type
              ? 'No event matches these filters.'
              : integration.connected
                ? 'No events yet. Stripe sends them as customers sign up and pay; the Stripe CLI sends one now (stripe trigger checkout.session.completed).'
                : 'No events yet: connect Stripe above first.'
          }
          columns={[
            {
              head: 'Event',
              cell: (e) => (
                <>
                  {e.type}
                  {e.livemode ? null : <span class="sub">test mode</span>}
                </>
              ),
            },
            {
              head: 'Outcome',
              cell: (e) => (
                <>
                  <StatusBadge status={eventState(e)} />
                  {e.reason ? <span class="sub">{e.reason}</span> : null}
                </>
              ),
            },
            { head: 'What it did', cell: (e) => <EventEffects event={e} program={program} /> },
            { head: 'Runs', numeric: true, cell: (e) => count(e.attempts) },
            { head: 'Received', cell: (e) => time(e.created_at) },
            {
              head: <span class="visually-hidden">Stripe's id</span>,
              cell: (e) => (
                <button type="button" class="copy" data-copy={e.id} aria-label={`Copy the Stripe id of this ${e.type} event`}>
                  Copy id
                </button>
              ),
            },
          ]}
        />
        <Pager page={events} base={base} filters={{ status: filters.status, type: filters.type }} cursor={filters as Cursor} />
      </section>
    </IntegrationsLayout>
  );
}

/** What an event did, the customer and payment it recorded linked to their pages (no ids as text). */
function EventEffects({ event: e, program }: { event: StripeEventObject; program: { id: string } }) {
  return (
    <>
      {e.message ?? ''}
      {e.waiting_for?.length ? (
        <span class="sub">
          Waits for <code>{e.waiting_for.join(', ')}</code>: it runs again when an event links it.
        </span>
      ) : null}
      {e.customer_id || e.transaction_id ? (
        <span class="sub">
          {e.customer_id ? <a href={programPath(program, `/customers/${e.customer_id}`)}>the customer</a> : null}
          {e.customer_id && e.transaction_id ? ' · ' : null}
          {e.transaction_id ? <a href={programPath(program, `/transactions/${e.transaction_id}`)}>the payment</a> : null}
        </span>
      ) : null}
    </>
  );
}
