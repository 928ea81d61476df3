import type { Request, Response, Router } from 'express';
import type { AppDeps } from '../../deps.js';
import { formatMoney } from '../../money.js';
import { DailyChart, type Period, type PeriodAsked, PeriodPicker, readPeriod } from '../../pages/chart.js';
import { Field, FormRefusal, SelectField } from '../../pages/fields.js';
import { Figure, Figures } from '../../pages/figures.js';
import { count, moneyList } from '../../pages/format.js';
import { fromFields } from '../../pages/forms.js';
import { type FieldLabels, type Refusal, refusalOf } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { type LinkValue, programSite, shareableLink, withLinkParam } from '../../resources/links/link-address.js';
import { LinkCreate, type LinkObject } from '../../resources/links/links.schema.js';
import { createLink, listLinks } from '../../resources/links/links.service.js';
import { linkValueFrom } from '../../resources/partner-access/portal-sign-up.js';
import { type NextPayout, nextPayoutOf } from '../../resources/payouts/payouts.service.js';
import type { StatsObject } from '../../resources/stats/stats.schema.js';
import { statsOf } from '../../resources/stats/stats.service.js';
import type { PortalContext, PortalContextOf } from '../context.js';
import { PortalCsrf, PortalLayout } from '../layout.js';
import { NextPayoutLine } from '../next-payout.js';
import { UnderReviewNote } from '../under-review.js';

/**
 * The partner's home in the portal (ingest/docs/partner-portal.md): their links with copy buttons,
 * a link builder for any page of the merchant's site (a GET form: it works without JavaScript),
 * their first link when they have none, their figures for a period (the stats API's, narrowed to
 * them) with the chart, and their balance with what the next payout will bring and what is under
 * review.
 */

export const homeNotices: Record<string, string> = {
  'link-created': 'Your link is ready: share it, or build a link to any page of the site below.',
};

/** The longest page address the builder takes (as the API's URL fields). */
const MAX_PAGE = 2048;

/** The first-link form's one field, by the parameter it sets. */
const LINK_LABELS: FieldLabels = { value: 'The end of your link' };

export function registerHomePages(router: Router, { db, store }: AppDeps, contextOf: PortalContextOf): void {
  /** The partner's live links, oldest first (a partner has a handful at most). */
  async function linksOf(ctx: PortalContext): Promise<LinkObject[]> {
    const page = await listLinks(db, ctx.program.organization_id, {
      program_id: ctx.program.id,
      partner_id: ctx.partner.id,
      order: 'asc',
      limit: 100,
    });
    return page.rows;
  }

  /** A value for the partner's first link that no link of the program has yet: their first name, numbered when taken. */
  async function suggestedValue(ctx: PortalContext): Promise<string> {
    const base = linkValueFrom(ctx.partner.first_name);
    const param = ctx.program.url_params[0];
    for (let n = 1; n <= 5; n++) {
      const value = n === 1 ? base : `${base}${n}`;
      const taken = await listLinks(db, ctx.program.organization_id, { program_id: ctx.program.id, param, value, limit: 1 });
      if (taken.rows.length === 0) return value;
    }
    return `${base}${Math.floor(100 + Math.random() * 900)}`;
  }

  /** Renders the page; `create` comes from a refused link creation, and its refusal's status is the page's. */
  async function showHome(req: Request, res: Response, ctx: PortalContext, create: CreateState | null = null): Promise<void> {
    const query = req.method === 'GET' ? (req.query as Record<string, unknown>) : {};
    const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
    // A period that cannot be shown leaves the page as it is, with the last 30 days and the picker saying why beside its field.
    const asked = readPeriod(query);
    const { period } = asked;
    let status = create?.refusal?.status ?? asked.refusal?.status ?? 200;
    const periodShown = asked.refusal ? null : period;

    const [links, stats, next] = await Promise.all([
      linksOf(ctx),
      statsOf(db, ctx.program, { start: period.start, end: period.end, partner_id: ctx.partner.id }),
      nextPayoutOf(db, ctx.program.organization_id, ctx.partner),
    ]);
    const site = siteOf(ctx.program.website_url);

    const pageAsked = (text('page') ?? '').trim();
    const chosen = links.find((l) => l.id === text('link')) ?? links[0];
    let builder: BuilderState = { page: pageAsked.slice(0, MAX_PAGE), linkId: chosen?.id ?? null, url: null, refusal: null };
    if (pageAsked && chosen) {
      const built = buildLink(pageAsked, site, chosen);
      builder = { ...builder, ...built };
      if (built.refusal) status = 400;
    }

    const suggestion = links.length === 0 && !create ? await suggestedValue(ctx) : null;
    sendPage(
      res,
      <HomePage
        ctx={ctx}
        site={site}
        links={links}
        builder={builder}
        asked={asked}
        periodShown={periodShown}
        stats={stats}
        next={next}
        create={create ?? { value: suggestion ?? '', refusal: null }}
      />,
      status,
    );
  }

  router.get('/', async (req, res) => {
    await showHome(req, res, contextOf(res, 'home'));
  });

  // The partner's first link, with a value of their choice; a partner with a live link gets no second one here.
  router.post('/links', async (req, res) => {
    const ctx = contextOf(res, 'home');
    const value = typeof req.body?.value === 'string' ? req.body.value.trim().slice(0, 100) : '';
    const refuse = (refusal: Refusal) => showHome(req, res, ctx, { value, refusal });
    if ((await linksOf(ctx)).length > 0) {
      return refuse({
        message: 'You have a link already: share it, or build your link to any page of the site with the form below.',
        status: 409,
      });
    }
    let refusal: Refusal;
    try {
      const input = fromFields(
        LinkCreate,
        { value, param: ctx.program.url_params[0], partner_id: ctx.partner.id },
        ['param', 'value', 'partner_id'],
        'body',
      );
      await createLink(db, store, ctx.program.organization_id, input);
      return res.redirect(303, `${ctx.base}/?notice=link-created`);
    } catch (err) {
      refusal = refusalOf(err, LINK_LABELS);
    }
    // The API's conflict names the link's (param, value); the partner chose only the value.
    if (refusal.status === 409)
      refusal = { field: 'value', message: `“${value}” is taken by another partner: choose another value.`, status: 409 };
    await refuse(refusal);
  });
}

/** The first-link form: the value shown (suggested, or typed) and why it was refused. */
interface CreateState {
  value: string;
  refusal: Refusal | null;
}

/** The link builder: the page asked for, with which link, and the link built or why not. */
interface BuilderState {
  page: string;
  linkId: string | null;
  url: string | null;
  refusal: Refusal | null;
}

/** The merchant's site as the builder's base, and the domain its links may point to (`www.` taken off: acme.com and its subdomains). */
interface Site {
  url: URL;
  domain: string;
}

function siteOf(websiteUrl: string | null): Site | null {
  const url = programSite(websiteUrl);
  return url ? { url, domain: url.hostname.replace(/^www\./, '') } : null;
}

/**
 * The partner's link to a page of the merchant's site: `page` is a full address (on the site's
 * domain or a subdomain of it), or a path of the site like `/pricing` when the program set its site.
 */
function buildLink(page: string, site: Site | null, link: LinkValue): { url: string | null; refusal: Refusal | null } {
  const refuse = (message: string) => ({ url: null, refusal: { field: 'page', message, status: 400 } });
  const where = site ? site.domain : 'the site';
  if (page.length > MAX_PAGE) return refuse(`That address is too long: at most ${MAX_PAGE} characters.`);
  let candidate: string;
  let relative = false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(page)) candidate = page;
  else if (page.startsWith('//')) candidate = `https:${page}`;
  else if (/^[/?#]/.test(page)) {
    candidate = page;
    relative = true;
  } else if (/[.:]/.test(page.split(/[/?#]/, 1)[0])) candidate = `https://${page}`;
  else {
    candidate = `/${page}`;
    relative = true;
  }
  if (relative && !site) {
    return refuse('The program has not given the address of its site, so enter the full address of the page, starting with https://.');
  }
  let url: URL;
  try {
    url = new URL(candidate, site?.url);
  } catch {
    return refuse(
      `That is not a web address: enter a path like /pricing or a full address like https://${site?.domain ?? 'example.com'}/pricing.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return refuse('Enter a web address: one that starts with https:// or http://.');
  if (url.username || url.password) return refuse('Enter the address of the page without a user name or password in it.');
  if (site && url.hostname !== site.domain && !url.hostname.endsWith(`.${site.domain}`)) {
    return refuse(`${url.hostname} is not ${where}: your links can only lead to pages of ${where} (or its subdomains).`);
  }
  return { url: withLinkParam(url, link), refusal: null };
}

/** The page's address with these query parameters (the period, the builder's page and link), for the period links. */
function homeHref(base: string, params: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
  const text = query.toString();
  return `${base}/${text ? `?${text}` : ''}`;
}

function HomePage(props: {
  ctx: PortalContext;
  site: Site | null;
  links: LinkObject[];
  builder: BuilderState;
  asked: PeriodAsked;
  periodShown: Period | null;
  stats: StatsObject;
  next: NextPayout;
  create: CreateState;
}) {
  const { ctx, links } = props;
  return (
    <PortalLayout ctx={ctx} title="Home">
      <h1>Welcome, {ctx.partner.first_name || ctx.partner.email}</h1>
      <p class="muted">Your {ctx.program.name} partner links, results and earnings.</p>
      {links.length === 0 ? (
        <CreateLinkSection ctx={ctx} site={props.site} create={props.create} />
      ) : (
        <LinksSection {...props} refusal={props.create.refusal} />
      )}
      <BuilderSection {...props} />
      <ResultsSection {...props} />
      <EarningsSection ctx={ctx} next={props.next} />
    </PortalLayout>
  );
}

/** Said where the partner's link would be while the program has no website address (shareableLink is null). */
const NO_SITE = "Your link appears here once the program's website address is set.";

function SiteNote({ site }: { site: Site | null }) {
  return site ? null : <p class="hint">{NO_SITE}</p>;
}

function LinksSection({
  ctx,
  site,
  links,
  refusal,
}: {
  ctx: PortalContext;
  site: Site | null;
  links: LinkObject[];
  refusal: Refusal | null;
}) {
  const shared = links.flatMap((link) => {
    const url = shareableLink(ctx.program, link);
    return url ? [{ link, url }] : [];
  });
  return (
    <section aria-labelledby="links-title">
      <h2 id="links-title">{links.length === 1 ? 'Your link' : 'Your links'}</h2>
      <FormRefusal refusal={refusal} />
      <SiteNote site={site} />
      <p class="hint">
        {site
          ? `Share it anywhere your audience is: visitors who arrive through it are counted as yours. It leads to ${site.url.href}; to link to another page, use the builder below.`
          : 'Meanwhile, the builder below makes your link to any page of the site from its full address.'}
      </p>
      {shared.length > 0 ? (
        <ul class="links partner-links">
          {shared.map(({ link, url }) => (
            <li>
              <code class="url" id={`link-${link.id}`}>
                {url}
              </code>
              <button type="button" class="copy" data-copy={url} aria-describedby={`link-${link.id}`}>
                Copy
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function CreateLinkSection({ ctx, site, create }: { ctx: PortalContext; site: Site | null; create: CreateState }) {
  const param = ctx.program.url_params[0];
  const example = shareableLink(ctx.program, { param, value: create.value || 'you' });
  return (
    <section aria-labelledby="links-title">
      <h2 id="links-title">Create your link</h2>
      <SiteNote site={site} />
      <p>
        You do not have a link yet. Choose the word that ends it
        {example ? (
          <>
            ; your link will look like this: <code class="url">{example}</code>
          </>
        ) : (
          '.'
        )}
      </p>
      <FormRefusal refusal={create.refusal} fields={Object.keys(LINK_LABELS)} />
      <form method="post" action={`${ctx.base}/links`} class="stack">
        <PortalCsrf ctx={ctx} />
        <Field
          name="value"
          id="link-value"
          label={LINK_LABELS.value}
          value={create.value}
          required
          maxlength={64}
          autocomplete="off"
          hint="Letters, digits, “.”, “_”, “~” or “-”, up to 64."
          refusal={create.refusal}
        />
        <button type="submit" class="primary">
          Create my link
        </button>
      </form>
    </section>
  );
}

function BuilderSection({
  ctx,
  site,
  links,
  builder,
  periodShown,
}: {
  ctx: PortalContext;
  site: Site | null;
  links: LinkObject[];
  builder: BuilderState;
  periodShown: Period | null;
}) {
  return (
    <section aria-labelledby="builder-title">
      <h2 id="builder-title">Link to any page</h2>
      {links.length === 0 ? (
        <p class="muted">Once you have your link, build your link to any page of the site here.</p>
      ) : (
        <>
          <p class="hint">
            {site
              ? `Enter the address of a page of ${site.domain} (or just its path, like /pricing) to get your link to that page.`
              : 'Enter the full address of a page of the site to get your link to that page.'}
          </p>
          <form method="get" action={`${ctx.base}/`} class="stack builder">
            <Field
              name="page"
              label="Page"
              inputmode="url"
              value={builder.page}
              required
              maxlength={MAX_PAGE}
              autocomplete="off"
              placeholder={site ? `${site.url.origin}/pricing` : 'https://…'}
              refusal={builder.refusal}
            />
            {links.length > 1 ? (
              <SelectField
                name="link"
                label="With your link"
                options={links.map((l) => [l.id, `?${l.param}=${l.value}`] as const)}
                value={builder.linkId}
              />
            ) : null}
            <PeriodFields period={periodShown} />
            <button type="submit">Build my link</button>
          </form>
          {builder.url ? (
            <div class="built" role="status">
              <p>Your link to this page:</p>
              <pre>
                <code id="built-link">{builder.url}</code>
              </pre>
              <button type="button" class="copy" data-copy={builder.url} aria-describedby="built-link">
                Copy this link
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}

/** The period as hidden fields of the builder's form, so that building a link keeps the figures' period. */
function PeriodFields({ period }: { period: Period | null }) {
  if (!period) return null;
  if (period.days !== null) return <input type="hidden" name="days" value={String(period.days)} />;
  return (
    <>
      <input type="hidden" name="start" value={period.start} />
      <input type="hidden" name="end" value={period.end} />
    </>
  );
}

function ResultsSection({
  ctx,
  links,
  builder,
  asked,
  stats,
}: {
  ctx: PortalContext;
  links: LinkObject[];
  builder: BuilderState;
  asked: PeriodAsked;
  stats: StatsObject;
}) {
  const { period } = asked;
  const currency = ctx.program.currency_code;
  const totals = stats.totals;
  const keep = { page: builder.page || null, link: builder.page && links.length > 1 ? builder.linkId : null };
  const empty = totals.clicks === 0 && totals.leads === 0 && totals.customers === 0 && Object.keys(totals.revenue).length === 0;
  // undefined: no link yet; null: a link, but no website address to make it shareable.
  const first = links[0] ? shareableLink(ctx.program, links[0]) : undefined;
  return (
    <section aria-labelledby="results-title">
      <div class="page-head">
        <h2 id="results-title">Your results</h2>
        <PeriodPicker
          period={period}
          refusal={asked.refusal}
          typed={asked.typed}
          action={`${ctx.base}/`}
          href={(days) => homeHref(ctx.base, { days: String(days), ...keep })}
        >
          {keep.page ? <input type="hidden" name="page" value={keep.page} /> : null}
          {keep.link ? <input type="hidden" name="link" value={keep.link} /> : null}
        </PeriodPicker>
      </div>
      <p class="period-label">
        {period.start} – {period.end} (UTC days)
      </p>
      <Figures>
        <Figure label="Clicks" value={count(totals.clicks)} hint="visits through your links" />
        <Figure label="Leads" value={count(totals.leads)} hint="sign-ups you referred" />
        <Figure label="Paying customers" value={count(totals.customers)} hint="by the day of their first payment" />
        <Figure label="Revenue" value={moneyList(totals.revenue, currency)} hint="their payments, net of refunds" />
        <Figure label="Commissions" value={moneyList(totals.commissions, currency)} hint="earned in these days" />
      </Figures>
      {empty ? (
        <div class="empty">
          <h3>{period.days !== null ? `No clicks yet in the last ${period.days} days` : 'No clicks in these days'}</h3>
          {first !== undefined ? (
            <>
              <p>
                Share your link where your audience is (your site, a newsletter, a video description, social media): each visit, sign-up and
                payment it brings shows here.
              </p>
              {first ? (
                <p>
                  <code class="url">{first}</code>{' '}
                  <button type="button" class="copy" data-copy={first}>
                    Copy your link
                  </button>
                </p>
              ) : (
                <p class="hint">{NO_SITE}</p>
              )}
            </>
          ) : (
            <p>Create your link above, then share it: each visit, sign-up and payment it brings shows here.</p>
          )}
        </div>
      ) : null}
      <DailyChart stats={stats} currency={currency} />
    </section>
  );
}

function EarningsSection({ ctx, next }: { ctx: PortalContext; next: NextPayout }) {
  const { balance } = next;
  const amounts = balance?.amounts ?? [];
  const money = (field: 'pending' | 'payable' | 'in_payouts' | 'paid' | 'on_hold') => (a: (typeof amounts)[number]) =>
    formatMoney(a[field], a.currency);
  // Held money is apart from pending and approved (the balance's on_hold): a column of its own, while there is some.
  const reviewed = amounts.some((a) => a.on_hold > 0);
  return (
    <section aria-labelledby="earnings-title">
      <h2 id="earnings-title">Your earnings</h2>
      {!balance || amounts.length === 0 ? (
        <p class="muted">
          No commissions yet. When a customer you referred pays, your commission shows here: pending at first, then approved, then paid to
          you.
        </p>
      ) : (
        <>
          <UnderReviewNote amounts={amounts} currency={ctx.program.currency_code} />
          <p class="hint">All time, per currency.</p>
          <DataTable
            caption="Your commissions by status"
            rows={amounts}
            empty="No commissions yet."
            columns={[
              { head: 'Currency', cell: (a) => a.currency },
              { head: 'Pending', numeric: true, cell: money('pending') },
              { head: 'Approved', numeric: true, cell: money('payable') },
              ...(reviewed ? [{ head: 'Under review', numeric: true, cell: money('on_hold') }] : []),
              { head: 'In payouts', numeric: true, cell: money('in_payouts') },
              { head: 'Paid', numeric: true, cell: money('paid') },
            ]}
          />
          <p class="hint">
            Pending: not approved yet (a refund can still cancel it). Approved: ready for the next payout.
            {reviewed ? ' Under review: paid once the review is done.' : ''} In payouts: on its way to you.
          </p>
          <h3>Next payout</h3>
          <ul class="next-payout">
            {next.currencies.map(({ amounts: a, readiness }) => (
              <li data-currency={a.currency}>
                <NextPayoutLine ctx={ctx} amounts={a} readiness={readiness} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
