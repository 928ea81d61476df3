import type { Response, Router } from 'express';
import { z } from 'zod';
import type { CustomerRow, PartnerRow } from '../../db/schema.js';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { listParams, type Page } from '../../http/list.js';
import { StatusBadge } from '../../pages/components.js';
import { FormRefusal, SelectField, TextareaField, type Typed, typedText } from '../../pages/fields.js';
import { FilterForm, type ListFilters, PickerChoiceLists, PickerFields, queryOf, readListFilters } from '../../pages/filters.js';
import { count, customerLabel, day, partnerName, time } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type Cursor, Pager } from '../../pages/pager.js';
import { type Refusal, refusalOf } from '../../pages/refusal.js';
import { type Children, sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { Tabs } from '../../pages/tabs.js';
import { partnersByIds } from '../../resources/partners/partners.service.js';
import { RISK_EVENT_STATUSES, type RiskEventObject, type RiskResolution, RiskResolve } from '../../resources/risk/risk.schema.js';
import { customersOfRiskEvents, listRiskEvents, resolveRiskEvent, retrieveRiskEvent } from '../../resources/risk/risk.service.js';
import { RISK_RULES, type RiskRule } from '../../resources/risk/risk-rules.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf, Layout } from '../layout.js';
import { listPickers } from '../list-filters.js';
import { evidenceLines, HOLDS_WORDS, heldWords, RESOLUTION_WORDS, RULE_TITLES, riskPath } from '../risk-words.js';

/**
 * The program's risk events (ingest/docs/dashboard.md#risk): the open ones grouped by partner and
 * rule, each with what matched in words, its customer and the money it holds, and the three
 * decisions of ingest/docs/risk.md#review (dismiss, reject its commissions, ban the partner),
 * each a form read through the API's RiskResolve schema and resolved by the service the
 * `/v1/risk-events/:id/resolve` route calls; the resolved ones under their own tab, with the
 * decision and its reason. A refused decision comes back with the reason beside its field.
 */

const PAGE_SIZE = 50;

export const riskNotices = {
  'risk-dismissed': 'Risk event dismissed: the commissions it held go on as any other.',
  'risk-rejected': 'Risk event resolved: the commissions it held are rejected, with your reason.',
  'risk-banned':
    'Partner banned: suspended with your reason, their pending commissions rejected and every open risk event of theirs resolved.',
};

const NOTICE_OF: Record<RiskResolution, keyof typeof riskNotices> = {
  dismiss: 'risk-dismissed',
  reject_commissions: 'risk-rejected',
  ban_partner: 'risk-banned',
};

const RiskFilters = z.strictObject({
  status: z.enum(RISK_EVENT_STATUSES).optional(),
  rule: z.enum(RISK_RULES).optional(),
  starting_after: listParams.starting_after,
  ending_before: listParams.ending_before,
});
type Filters = z.output<typeof RiskFilters>;
const FILTER_FIELDS = ['status', 'rule', 'starting_after', 'ending_before'];
const FILTER_LABELS = { status: 'Status', rule: 'Rule' };
const LABELS = { action: 'Decision', reason: 'Reason' };

/** A decision refused: which event and which form, why, and what was typed. */
interface RefusedForm {
  eventId: string;
  action: string;
  refusal: Refusal;
  typed: Typed;
}

/** A form's `back` (the filters of the page it was sent from, as `?…`), as a query. */
const backQuery = (back: unknown): URLSearchParams =>
  new URLSearchParams(typeof back === 'string' && back.startsWith('?') ? back.slice(1) : '');

/**
 * A refused decision in words: a missing reason says who sees it; an event resolved since the page
 * was shown (409) is no longer among the open ones, which is said at the top of the page, without
 * its id.
 */
function decisionRefusal(err: unknown, action: unknown): Refusal {
  const refusal = refusalOf(err, LABELS);
  if (refusal.field === 'reason' && refusal.status === 400 && /^Is required/.test(refusal.message)) {
    const words = action === 'ban_partner' ? 'to ban the partner: they see it' : 'to reject these commissions: the partner sees it';
    return { ...refusal, message: `Give a reason ${words}.` };
  }
  if (refusal.status === 409) {
    return {
      status: 409,
      message: 'This risk event was already resolved, since this page was shown: nothing was changed. See the Resolved tab.',
    };
  }
  return refusal;
}

/** What a page of risk events names: the partners (theirs and the ones sharing a payout account) and the customers. */
interface Names {
  partners: ReadonlyMap<string, PartnerRow>;
  customers: ReadonlyMap<string, CustomerRow>;
}

export function registerRiskPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db, mailer } = deps;

  /** The list for `query` (the page's address, or a refused form's `back`), with that refusal when there is one. */
  async function showRisk(res: Response, ctx: ProgramPageContext, query: Record<string, unknown>, refused?: RefusedForm) {
    const org = ctx.user.organization_id;
    const view = await readListFilters({
      base: programPath(ctx.program, '/risk'),
      query,
      ...listPickers(db, ctx, ['partner'], query),
      schema: RiskFilters,
      fields: FILTER_FIELDS,
      labels: FILTER_LABELS,
      keep: (f) => ({ status: f.status === 'resolved' ? 'resolved' : undefined, rule: f.rule }),
    });
    if (view.moved && !refused) return res.redirect(303, view.moved);
    const f = view.filters;
    const page =
      view.ready && f
        ? await listRiskEvents(db, org, {
            program_id: ctx.program.id,
            partner_id: view.kept.partner_id,
            rule: f.rule,
            status: f.status ?? 'open',
            starting_after: f.starting_after,
            ending_before: f.ending_before,
            limit: PAGE_SIZE,
          })
        : null;
    const rows = page?.rows ?? [];
    const [partners, customers] = await Promise.all([
      partnersByIds(
        db,
        org,
        rows.flatMap((e) => (e.other_partner_id ? [e.partner_id, e.other_partner_id] : [e.partner_id])),
      ),
      customersOfRiskEvents(db, org, rows),
    ]);
    sendPage(
      res,
      <RiskPage ctx={ctx} view={view} page={page} names={{ partners, customers }} refused={refused} />,
      refused?.refusal.status ?? view.refusal?.status,
    );
  }

  router.get('/programs/:programId/risk', async (req, res) => {
    const ctx = await contextOf(res, 'risk', req.params.programId);
    await showRisk(res, ctx, req.query);
  });

  router.post('/programs/:programId/risk/:eventId/resolve', async (req, res) => {
    const ctx = await contextOf(res, 'risk', req.params.programId);
    const org = ctx.user.organization_id;
    // The event of the program in the URL: another program's or organization's is a 404.
    const event = await retrieveRiskEvent(db, org, req.params.eventId);
    if (event.program_id !== ctx.program.id) throw notFound('risk_event', event.id);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const back = backQuery(body.back);
    back.delete('notice');
    let action: RiskResolution;
    try {
      const input = fromFields(RiskResolve, body, ['action', 'reason'], 'body');
      action = input.action;
      const { queued } = await resolveRiskEvent(db, org, event.id, input);
      if (queued) mailer.kick();
    } catch (err) {
      const refusal = decisionRefusal(err, body.action);
      return showRisk(res, ctx, Object.fromEntries(back), { eventId: event.id, action: String(body.action), refusal, typed: body });
    }
    back.set('notice', NOTICE_OF[action]);
    res.redirect(303, programPath(ctx.program, `/risk?${back}`));
  });
}

/** The open events of a page by partner, then by rule, each in the order it first appears (newest first). */
function groupsOf(rows: readonly RiskEventObject[]): { partnerId: string; rules: { rule: RiskRule; events: RiskEventObject[] }[] }[] {
  const partners = new Map<string, Map<RiskRule, RiskEventObject[]>>();
  for (const event of rows) {
    const rules = partners.get(event.partner_id) ?? new Map<RiskRule, RiskEventObject[]>();
    partners.set(event.partner_id, rules);
    rules.set(event.rule, [...(rules.get(event.rule) ?? []), event]);
  }
  return [...partners].map(([partnerId, rules]) => ({ partnerId, rules: [...rules].map(([rule, events]) => ({ rule, events })) }));
}

/** A partner by name, linking to their page; a partner deleted since says so. */
function PartnerLink({ program, id, names }: { program: ProgramPageContext['program']; id: string; names: Names }) {
  const partner = names.partners.get(id);
  if (!partner) return <span>a deleted partner</span>;
  return <a href={programPath(program, `/partners/${id}`)}>{partnerName(partner)}</a>;
}

/** The customer an event concerns, by name or e-mail, linking to their page. */
function CustomerLink({ program, event, names }: { program: ProgramPageContext['program']; event: RiskEventObject; names: Names }) {
  if (!event.customer_id) return null;
  const customer = names.customers.get(event.customer_id);
  if (!customer) return <span>a deleted customer</span>;
  return <a href={programPath(program, `/customers/${customer.id}`)}>{customerLabel(customer)}</a>;
}

function RiskPage({
  ctx,
  view,
  page,
  names,
  refused,
}: {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  page: Page<RiskEventObject> | null;
  names: Names;
  refused?: RefusedForm;
}) {
  const program = ctx.program;
  const { kept, typed } = view;
  const resolved = kept.status === 'resolved';
  const filtered = Boolean(kept.partner_id || kept.rule);
  // A missing reason is said beside the reason of the form it was refused in; anything else (an
  // event resolved meanwhile, no longer shown) at the top of the page.
  const shownIds = new Set(page?.rows.map((e) => e.id) ?? []);
  const beside =
    refused &&
    !resolved &&
    shownIds.has(refused.eventId) &&
    refused.refusal.field === 'reason' &&
    (refused.action === 'reject_commissions' || refused.action === 'ban_partner')
      ? refused
      : undefined;
  const refusedElsewhere = beside ? undefined : refused;
  return (
    <Layout ctx={ctx} title="Risk">
      <div class="page-head">
        <h1>Risk</h1>
        <a href={programPath(program, '/settings/risk-rules')}>Risk rules</a>
      </div>
      <p class="muted">
        The program's rules flag referrals that look like fraud. While an event is open, the commissions it concerns are held: the approval
        job leaves them pending and payouts leave them out. Dismiss it to release them, reject them, or ban the partner.
      </p>
      <Tabs
        label="Risk events"
        tabs={[
          { href: riskPath(program, { ...kept, status: undefined }), label: 'Open', current: !resolved },
          { href: riskPath(program, { ...kept, status: 'resolved' }), label: 'Resolved', current: resolved },
        ]}
      />
      <FilterForm action={programPath(program, '/risk')} label="Filter risk events" filtered={filtered}>
        {resolved ? <input type="hidden" name="status" value="resolved" /> : null}
        <PickerFields view={view} />
        <SelectField
          name="rule"
          id="filter-rule"
          label="Rule"
          value={typed.rule}
          options={[['', 'Any'], ...RISK_RULES.map((r) => [r, RULE_TITLES[r]] as const)]}
          refusal={view.refusal}
        />
      </FilterForm>
      <PickerChoiceLists view={view} />
      {refusedElsewhere ? <FormRefusal refusal={refusedElsewhere.refusal} /> : null}
      {page === null ? null : resolved ? (
        <ResolvedEvents ctx={ctx} rows={page.rows} names={names} filtered={filtered} />
      ) : (
        <OpenEvents ctx={ctx} view={view} rows={page.rows} names={names} filtered={filtered} refused={beside} />
      )}
      {page ? <Pager page={page} base={programPath(program, '/risk')} filters={kept} cursor={view.filters as Cursor} /> : null}
    </Layout>
  );
}

function OpenEvents({
  ctx,
  view,
  rows,
  names,
  filtered,
  refused,
}: {
  ctx: ProgramPageContext;
  view: ListFilters<Filters>;
  rows: RiskEventObject[];
  names: Names;
  filtered: boolean;
  refused?: RefusedForm;
}) {
  const program = ctx.program;
  if (rows.length === 0) {
    return (
      <p class="empty">
        {filtered
          ? 'No open risk event matches these filters.'
          : 'No open risk events: nothing is held. The rules flag referrals as they arrive; choose them in Risk rules.'}
      </p>
    );
  }
  // Back to the same filters, on their first page: the event decided leaves the open ones, and a
  // cursor naming it would no longer be one of the list's.
  const back = `?${queryOf(view.kept)}`;
  return (
    <>
      {groupsOf(rows).map(({ partnerId, rules }) => {
        const partner = names.partners.get(partnerId);
        const heading = `risk-partner-${partnerId}`;
        const events = rules.reduce((n, r) => n + r.events.length, 0);
        return (
          <section class="risk-partner" aria-labelledby={heading}>
            <h2 id={heading}>
              <PartnerLink program={program} id={partnerId} names={names} /> {partner ? <StatusBadge status={partner.status} /> : null}
            </h2>
            <p class="sub">
              {partner ? `${partner.email} · ` : ''}
              {`${count(events)} open risk event${events === 1 ? '' : 's'}`}
            </p>
            {rules.map(({ rule, events: ofRule }) => (
              <div class="risk-rule">
                <h3>{RULE_TITLES[rule]}</h3>
                <ul class="risk-events">
                  {ofRule.map((event) => (
                    <OpenEvent
                      ctx={ctx}
                      event={event}
                      names={names}
                      back={back}
                      refused={refused?.eventId === event.id ? refused : undefined}
                    />
                  ))}
                </ul>
              </div>
            ))}
          </section>
        );
      })}
    </>
  );
}

/** What an open event's parts are drawn from. */
interface EventProps {
  ctx: ProgramPageContext;
  event: RiskEventObject;
  names: Names;
  /** The list, on the same filters, that a decision goes back to. */
  back: string;
  /** The refused decision on this event, to show again with its refusal. */
  refused?: RefusedForm;
}

/** One open event: what matched, its customer, what it holds, and the three decisions. */
function OpenEvent({ ctx, event, names, back, refused }: EventProps) {
  const program = ctx.program;
  const other = event.other_partner_id ? <PartnerLink program={program} id={event.other_partner_id} names={names} /> : 'another partner';
  const held = heldWords(event.held);
  return (
    <li class="risk-event" id={`event-${event.id}`}>
      <ul class="evidence">
        {evidenceLines(event, other).map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <dl class="risk-facts">
        {event.customer_id ? (
          <div>
            <dt>Customer</dt>
            <dd>
              <CustomerLink program={program} event={event} names={names} />
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Flagged</dt>
          <dd>{time(event.created_at)}</dd>
        </div>
        <div>
          <dt>Money held</dt>
          <dd>
            {held ?? 'Nothing yet'}
            <span class="sub">{held ? `Holds ${HOLDS_WORDS[event.holds]}` : `Holds ${HOLDS_WORDS[event.holds]} as they are earned`}</span>
          </dd>
        </div>
      </dl>
      <Decisions ctx={ctx} event={event} names={names} back={back} refused={refused} />
    </li>
  );
}

/** Dismiss, reject its commissions, ban the partner: each a form of its own; the two that need a reason open again when refused. */
function Decisions({ ctx, event, names, back, refused }: EventProps) {
  const action = programPath(ctx.program, `/risk/${event.id}/resolve`);
  const partner = names.partners.get(event.partner_id);
  const who = partner ? partnerName(partner) : 'this partner';
  const hidden = (
    <>
      <Csrf ctx={ctx} />
      <input type="hidden" name="back" value={back} />
    </>
  );
  const withReason = (kind: 'reject_commissions' | 'ban_partner') => {
    const mine = refused?.action === kind ? refused : undefined;
    const words =
      kind === 'reject_commissions'
        ? {
            summary: 'Reject commissions…',
            hint: 'The commissions this event holds that are in no payout are rejected; the partner sees the reason.',
            button: 'Reject its commissions',
            confirm: undefined,
          }
        : {
            summary: 'Ban partner…',
            hint: `${who} is suspended and every pending commission of theirs is rejected; they see the reason. Their other open events are resolved too.`,
            button: `Ban ${who}`,
            confirm: `Ban ${who}? They are suspended, their pending commissions are rejected and all their open risk events are resolved.`,
          };
    return (
      <details class="inline" open={mine !== undefined}>
        <summary class="button">{words.summary}</summary>
        <form method="post" action={action} class="stack">
          {hidden}
          <FormRefusal refusal={mine?.refusal} fields={['reason']} />
          <TextareaField
            name="reason"
            id={`${kind === 'ban_partner' ? 'ban' : 'reject'}-reason-${event.id}`}
            label="Reason (required)"
            rows={2}
            maxlength={1000}
            value={typedText(mine?.typed, 'reason')}
            hint={words.hint}
            refusal={mine?.refusal}
          />
          <button type="submit" name="action" value={kind} class="danger" data-confirm={words.confirm}>
            {words.button}
          </button>
        </form>
      </details>
    );
  };
  return (
    <div class="actions">
      <form method="post" action={action} class="inline">
        {hidden}
        <button type="submit" name="action" value="dismiss">
          Dismiss
        </button>
      </form>
      {withReason('reject_commissions')}
      {withReason('ban_partner')}
    </div>
  );
}

/** The decided events: what matched, the decision and its reason, when. */
function ResolvedEvents({
  ctx,
  rows,
  names,
  filtered,
}: {
  ctx: ProgramPageContext;
  rows: RiskEventObject[];
  names: Names;
  filtered: boolean;
}) {
  const program = ctx.program;
  return (
    <DataTable
      caption="Resolved risk events"
      rows={rows}
      empty={filtered ? 'No resolved risk event matches these filters.' : 'No risk event has been resolved yet.'}
      columns={[
        {
          head: 'Partner',
          cell: (e) => (
            <>
              <PartnerLink program={program} id={e.partner_id} names={names} />
              <span class="sub">{RULE_TITLES[e.rule]}</span>
            </>
          ),
        },
        {
          head: 'What matched',
          cell: (e) => (
            <>
              {joinLines(
                evidenceLines(
                  e,
                  e.other_partner_id ? <PartnerLink program={program} id={e.other_partner_id} names={names} /> : 'another partner',
                ),
              )}
              {e.customer_id ? (
                <span class="sub">
                  Customer <CustomerLink program={program} event={e} names={names} />
                </span>
              ) : null}
            </>
          ),
        },
        {
          head: 'Decision',
          cell: (e) => (
            <>
              {e.resolution ? RESOLUTION_WORDS[e.resolution] : 'Resolved'}
              {e.resolution_reason ? <span class="sub">{`Reason: ${e.resolution_reason}`}</span> : null}
            </>
          ),
        },
        { head: 'Flagged', cell: (e) => <Day at={e.created_at} /> },
        { head: 'Resolved', cell: (e) => (e.resolved_at ? <Day at={e.resolved_at} /> : '—') },
      ]}
    />
  );
}

/** A UTC day on one line. */
const Day = ({ at }: { at: string }) => (
  <time class="day" dateTime={at}>
    {day(at)}
  </time>
);

/** Lines of evidence as one run of text: "…; …". */
function joinLines(lines: Children[]): Children {
  return lines.map((line, i) => (
    <>
      {i > 0 ? '; ' : null}
      {line}
    </>
  ));
}
