import type { Router } from 'express';
import type { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import type { Page } from '../../http/list.js';
import { count, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { sendPage } from '../../pages/render.js';
import {
  STRIPE_EVENT_STATUSES,
  StripeConnect,
  StripeEventListQuery,
  type StripeEventObject,
  type StripeIntegrationObject,
} from '../../resources/stripe/stripe.schema.js';
import { connectStripe, disconnectStripe, listStripeEvents, retrieveStripeIntegration } from '../../resources/stripe/stripe.service.js';
import { OPTIONAL_EVENT_TYPES } from '../../resources/stripe/stripe-event-handlers.js';
import type { ContextOf, PageContext, ProgramPageContext } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { requireOwner } from '../session-auth.js';

const PAGE_SIZE = 25;

export const stripeNotices = {
  'stripe-connected': 'Stripe connected. The events Stripe sends to the URL below are checked with the signing secret you saved.',
  'stripe-saved': 'Stripe settings saved.',
  'stripe-disconnected': 'Stripe disconnected: its events are refused from now on. The events and customers recorded stay.',
};

/** The integrations page of a program's Stripe connection. */
export const stripePath = (programId: string) => `/dashboard/integrations/stripe/${programId}`;

type EventFilters = Pick<z.output<typeof StripeEventListQuery>, 'status' | 'type' | 'starting_after' | 'ending_before'>;

/** How an event reads in the log: an ignored event that waits for another is "waiting". */
export const eventState = (e: Pick<StripeEventObject, 'status' | 'waiting_for'>) =>
  e.status === 'ignored' && e.waiting_for && e.waiting_for.length > 0 ? 'waiting' : e.status;

export function registerStripePages(router: Router, { db }: AppDeps, contextOf: ContextOf): void {
  router.get('/integrations/stripe/:programId', requireOwner, async (req, res) => {
    const ctx = await contextOf(res, 'integrations', req.params.programId as string);
    const program = ctx.program;
    const filters = fromFields(
      StripeEventListQuery,
      req.query,
      ['status', 'type', 'starting_after', 'ending_before'],
      'query',
    ) as EventFilters;
    const org = ctx.user.organization_id;
    const [integration, events] = await Promise.all([
      retrieveStripeIntegration(db, org, program.id, ctx.publicUrl),
      listStripeEvents(db, org, program.id, { ...filters, limit: PAGE_SIZE }),
    ]);
    sendPage(res, <StripePage ctx={ctx} integration={integration} events={events} filters={filters} />);
  });

  router.post('/integrations/stripe/:programId', requireOwner, async (req, res) => {
    const ctx = await contextOf(res, 'integrations', req.params.programId as string);
    const program = ctx.program;
    const secret = typeof req.body?.webhook_secret === 'string' ? req.body.webhook_secret.trim() : undefined;
    const input = fromFields(
      StripeConnect,
      { webhook_secret: secret, tax_counts_as_revenue: req.body?.tax_counts_as_revenue === 'on' },
      ['webhook_secret', 'tax_counts_as_revenue'],
      'body',
    );
    const before = await retrieveStripeIntegration(db, ctx.user.organization_id, program.id, ctx.publicUrl);
    await connectStripe(db, ctx.user.organization_id, program.id, input, ctx.publicUrl);
    // The secret is never shown again, nor put in the URL: the page shows it redacted.
    res.redirect(303, `${stripePath(program.id)}?notice=${before.connected ? 'stripe-saved' : 'stripe-connected'}`);
  });

  router.post('/integrations/stripe/:programId/disconnect', requireOwner, async (req, res) => {
    const ctx = await contextOf(res, 'integrations', req.params.programId as string);
    await disconnectStripe(db, ctx.user.organization_id, ctx.program.id);
    res.redirect(303, `${stripePath(ctx.program.id)}?notice=stripe-disconnected`);
  });
}

/** The events to select in Stripe, one a line (what the copy button copies). */
const eventList = (types: string[]) => types.join('\n');

function StripePage(props: {
  ctx: ProgramPageContext;
  integration: StripeIntegrationObject;
  events: Page<StripeEventObject>;
  filters: EventFilters;
}) {
  const { ctx, integration, events, filters } = props;
  const program = ctx.program;
  const base = stripePath(program.id);
  const counts = integration.event_counts;
  return (
    <Layout ctx={ctx} title={`Stripe · ${program.name}`}>
      <p class="crumbs">
        <a href="/dashboard/integrations">Integrations</a> /
      </p>
      <div class="page-head">
        <h1>
          Stripe for {program.name}{' '}
          <span class={`badge badge-${integration.connected ? 'connected' : 'disconnected'}`}>
            {integration.connected ? 'connected' : 'not connected'}
          </span>
        </h1>
      </div>
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

      <section aria-labelledby="stripe-setup-title">
        <h2 id="stripe-setup-title">{integration.connected ? 'The Stripe webhook endpoint' : 'Connect Stripe'}</h2>
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
              <label for="webhook_secret">Signing secret{integration.connected ? ' (new one, optional)' : ''}</label>
              <input
                id="webhook_secret"
                name="webhook_secret"
                type="password"
                autocomplete="off"
                spellcheck={false}
                required={!integration.connected}
                maxlength={210}
                placeholder="whsec_…"
                aria-describedby="webhook-secret-hint"
              />
              <span id="webhook-secret-hint" class="hint">
                Stored to check Stripe's signatures; shown from now on only as whsec_… and its last four characters.
              </span>
              <label class="check">
                <input type="checkbox" name="tax_counts_as_revenue" checked={integration.tax_counts_as_revenue} /> Tax Stripe collects
                counts as revenue (commissions are paid on it)
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

      <section aria-labelledby="stripe-events-title">
        <h2 id="stripe-events-title">Event log</h2>
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
        {events.rows.length === 0 ? (
          <p class="empty">
            {filters.status || filters.type
              ? 'No event matches these filters.'
              : integration.connected
                ? 'No events yet. Stripe sends them as customers sign up and pay; the Stripe CLI sends one now (stripe trigger checkout.session.completed).'
                : 'No events yet: connect Stripe above first.'}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">What it did</th>
                  <th scope="col" class="num">
                    Runs
                  </th>
                  <th scope="col">Received</th>
                </tr>
              </thead>
              <tbody>
                {events.rows.map((e) => {
                  const state = eventState(e);
                  return (
                    <tr>
                      <th scope="row">
                        {e.type}
                        <span class="sub">
                          <code>{e.id}</code>
                          {e.livemode ? '' : ' · test mode'}
                        </span>
                      </th>
                      <td>
                        <span class={`badge badge-${state}`}>{state}</span>
                        {e.reason ? <span class="sub">{e.reason}</span> : null}
                      </td>
                      <td>
                        {e.message ?? ''}
                        {e.waiting_for?.length ? (
                          <span class="sub">
                            Waits for <code>{e.waiting_for.join(', ')}</code>: it runs again when an event links it.
                          </span>
                        ) : null}
                        {e.customer_id || e.transaction_id ? (
                          <span class="sub">
                            {e.customer_id ? (
                              <>
                                customer <code>{e.customer_id}</code>{' '}
                              </>
                            ) : null}
                            {e.transaction_id ? (
                              <>
                                transaction <code>{e.transaction_id}</code>
                              </>
                            ) : null}
                          </span>
                        ) : null}
                      </td>
                      <td class="num">{count(e.attempts)}</td>
                      <td>{time(e.created_at)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={events} base={base} filters={{ status: filters.status, type: filters.type }} cursor={filters as Cursor} />
      </section>
    </Layout>
  );
}

/** The Stripe row of a program on the integrations page. */
export function StripeSummary({ ctx, states }: { ctx: PageContext; states: StripeIntegrationObject[] }) {
  return (
    <section aria-labelledby="stripe-title">
      <h2 id="stripe-title">Stripe</h2>
      <p>
        Connect a program to Stripe and svc records its payments, renewals, refunds and cancellations from Stripe's events, with no code of
        yours.
      </p>
      {ctx.programs.length === 0 ? (
        <p class="empty">No programs yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Program</th>
                <th scope="col">Connection</th>
                <th scope="col" class="num">
                  Events
                </th>
                <th scope="col">Last event</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {ctx.programs.map((p) => {
                const s = states.find((x) => x.program_id === p.id);
                const total = s ? STRIPE_EVENT_STATUSES.reduce((n, k) => n + s.event_counts[k], 0) : 0;
                return (
                  <tr>
                    <th scope="row">{p.name}</th>
                    <td>
                      {s?.connected ? (
                        <>
                          <span class="badge badge-connected">connected</span>{' '}
                          <span class="sub">
                            secret <code>{s.webhook_secret}</code>
                          </span>
                        </>
                      ) : (
                        <span class="badge badge-disconnected">not connected</span>
                      )}
                    </td>
                    <td class="num">{count(total)}</td>
                    <td>{s?.last_event_at ? time(s.last_event_at) : '—'}</td>
                    <td>
                      <a href={stripePath(p.id)} aria-label={`${s?.connected ? 'Manage Stripe' : 'Connect Stripe'} for ${p.name}`}>
                        {s?.connected ? 'Manage and event log' : 'Connect Stripe'}
                      </a>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
