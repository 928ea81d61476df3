import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { type Browser, type BrowserContext, test as base, expect, type Frame, type Page, type Request } from '@playwright/test';
import { type ApiClient, apiClient, type Customer, type PartnerStats } from '../../ingest/client/api-client.js';

/** Per-project options (playwright.config.ts): where that project's demo instance wrote its state. */
export interface DemoOptions {
  stateFile: string;
  demoPort: number;
}

/** What demo-site/src/main.ts writes to DEMO_STATE_FILE. */
export interface DemoState {
  ingestUrl: string;
  demoUrl: string;
  organization_id: string;
  program_id: string;
  group_id: string;
  api_key: string;
  public_key: string;
  /**
   * The demo program's partner portal (ingest/docs/partner-portal.md), and where ingest writes
   * e-mails as .eml files.
   */
  portalUrl: string;
  outboxDir: string;
  /** The dashboard's seeded owner (ingest/docs/dashboard.md). */
  owner_email: string | null;
  owner_password: string | null;
  partners: { id: string; name: string; email: string; link: { name: string; partnerId: string; url: string } }[];
}

export interface SvcData {
  click_id: string;
  cookie_duration: number;
  partner_id: string;
  program_id: string;
  customer_id: string | null;
}

/** The package version svc.js is built from: every track request body carries it as `v`. */
export const SCRIPT_VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/** A unique, URL- and e-mail-safe token. */
export const unique = (prefix = 't') => `${prefix}${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
export const uniqueEmail = (tag: string) => `${unique(tag)}@customers.example`;

// ---------------------------------------------------------------------------------------------
// The /v1 API (ingest/client/api-client.ts), with the secret key from the state file (what the merchant's server would use).

export type Api = ApiClient;

export interface Referral {
  partnerId: string;
  linkId: string;
  programId: string;
  param: string;
  value: string;
  /** The demo's landing page through this link, e.g. `/?ref=t1abc`. */
  path: string;
}

/**
 * A new partner with one link of its own, so that every test reads back records nobody else
 * touches (all visitors share 127.0.0.1, and the tests run in parallel).
 */
export async function newReferral(api: Api, programId: string, param = 'ref'): Promise<Referral> {
  const value = unique('v');
  const partner = (
    await api.post('/v1/partners', { program_id: programId, first_name: 'E2E', last_name: value, email: `${value}@partners.example` })
  ).data[0];
  const link = (await api.post('/v1/links', { partner_id: partner.id, param, value })).data[0];
  return { partnerId: partner.id, linkId: link.id, programId, param, value, path: `/?${param}=${value}` };
}

export async function partnerStats(api: Api, partnerId: string): Promise<PartnerStats> {
  return (await api.get(`/v1/partners/${partnerId}?include[]=stats`)).data.stats!;
}

/** The partner's recorded clicks, read back through the API (polled: the counters may trail the answer). */
export async function expectClicks(api: Api, partnerId: string, clicks: number): Promise<void> {
  await expect
    .poll(async () => (await partnerStats(api, partnerId)).total_clicks, { message: `total_clicks of ${partnerId}` })
    .toBe(clicks);
}

/**
 * The customers attributed to a partner (the list nests its array in data.data, as the Partnership
 * Program API says).
 */
export async function customersOf(api: Api, programId: string, partnerId: string): Promise<Customer[]> {
  return (await api.get(`/v1/customers?program_id=${programId}&partner_id=${partnerId}`)).data.data;
}

// ---------------------------------------------------------------------------------------------
// A visitor: a fresh browser context, with every request to /v1/track/* and every page error recorded.

export interface TrackCall {
  kind: 'click' | 'signup';
  method: string;
  url: string;
  /** Date.now() when the browser issued the request. */
  at: number;
  request: Request;
  /** The request body as sent (JSON), and its headers. */
  body: any;
  headers: Record<string, string>;
  response?: { status: number; headers: { name: string; value: string }[]; body: any; at: number };
  failure?: string;
  /** Resolves once the response (or the failure) has been recorded. */
  settled: Promise<void>;
}

const TRACK_PATH = /\/v1\/track\/(click|signup)$/;
// HeadlessChrome on purpose: ingest counts it only because the demo runs with the bot filter off.
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';

/** A request that failed at the network level, or that a server answered with a 5xx. */
export interface FailedRequest {
  method: string;
  url: string;
  reason: string;
}

/**
 * A page's own stylesheets, scripts, images and fonts that the browser cancels (net::ERR_ABORTED)
 * because the test went on to the next page before they had loaded: the test's pace, not a
 * defect. Such a cancellation passes the health check if its frame navigated (committed another
 * document) after the asset was requested, judged once the test is over: the browser may report
 * the cancellation before the navigation that caused it. One on a page that stayed to the end
 * still fails it, as does a server that fails them (a refused or reset connection, a 5xx) and any
 * cancelled fetch, such as a track request.
 */
const ABORTED = 'net::ERR_ABORTED';
const LEFT_BEHIND = new Set(['stylesheet', 'script', 'image', 'font']);

/** A page asset the browser cancelled, with how many navigations its frame had made when it was requested. */
interface Cancelled {
  failure: FailedRequest;
  frame: Frame;
  navigationsBefore: number;
}

/** The frame that made a request; none for a service worker's (Playwright throws there). */
function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

export class Visitor {
  readonly calls: TrackCall[] = [];
  readonly errors: Error[] = [];
  readonly failedRequests: FailedRequest[] = [];
  /** Failed requests a test brings about on purpose (see allowFailures). */
  private readonly expectedFailures: RegExp[] = [];
  /** Per frame, the navigations it has made (documents committed); per page asset, that count when it was requested. */
  private readonly navigations = new WeakMap<Frame, number>();
  private readonly navigationsAtRequest = new WeakMap<Request, number>();
  /** Page assets the browser cancelled, judged by expectHealthy. */
  private readonly cancelled: Cancelled[] = [];
  page!: Page;

  constructor(
    readonly context: BrowserContext,
    readonly demo: DemoState,
  ) {}

  static async open(browser: Browser, demo: DemoState, baseURL: string): Promise<Visitor> {
    // Every visitor comes from 127.0.0.1: a User-Agent of its own keeps ingest's repeat-click
    // memory (same IP + User-Agent within an hour) from merging different visitors.
    const context = await browser.newContext({ baseURL, userAgent: `${USER_AGENT} e2e/${unique('u')}` });
    const visitor = new Visitor(context, demo);
    await context.addInitScript(() => {
      const w = globalThis as any;
      w.__svcReady = false;
      w.addEventListener('svc:ready', () => {
        w.__svcReady = true;
      });
    });
    context.on('page', (page) => visitor.watch(page));
    context.on('request', (request) => {
      const frame = frameOf(request);
      if (frame && LEFT_BEHIND.has(request.resourceType())) visitor.navigationsAtRequest.set(request, visitor.navigationsOf(frame));
      visitor.record(request);
    });
    context.on('requestfailed', (request) => {
      const failure = { method: request.method(), url: request.url(), reason: request.failure()?.errorText ?? 'failed' };
      const navigationsBefore = visitor.navigationsAtRequest.get(request);
      const frame = frameOf(request);
      if (failure.reason === ABORTED && navigationsBefore !== undefined && frame)
        visitor.cancelled.push({ failure, frame, navigationsBefore });
      else visitor.failedRequests.push(failure);
    });
    context.on('response', (response) => {
      if (response.status() >= 500)
        visitor.failedRequests.push({ method: response.request().method(), url: response.url(), reason: `HTTP ${response.status()}` });
    });
    visitor.page = await context.newPage();
    return visitor;
  }

  private watch(page: Page): void {
    page.on('pageerror', (error) => this.errors.push(error));
    page.on('framenavigated', (frame) => this.navigations.set(frame, this.navigationsOf(frame) + 1));
  }

  private navigationsOf(frame: Frame): number {
    return this.navigations.get(frame) ?? 0;
  }

  private record(request: Request): void {
    const match = TRACK_PATH.exec(new URL(request.url()).pathname);
    if (!match) return;
    const call = {
      kind: match[1] as TrackCall['kind'],
      method: request.method(),
      url: request.url(),
      at: Date.now(),
      request,
      body: parse(request.postData()),
      headers: {},
    } as TrackCall;
    call.settled = (async () => {
      const response = await request.response().catch(() => null);
      // Taken before asking the browser for anything more (allHeaders may take a round trip).
      const at = Date.now();
      call.headers = await request.allHeaders().catch(() => request.headers());
      if (!response) {
        call.failure = request.failure()?.errorText ?? 'no response';
        return;
      }
      // Read the body at once: a page that navigates right after the answer takes it along.
      const [text, headers] = await Promise.all([response.text().catch(() => ''), response.headersArray().catch(() => [])]);
      call.response = { status: response.status(), headers, body: parse(text), at };
    })();
    this.calls.push(call);
  }

  /**
   * The demo's signup form navigates away as soon as its own POST /api/users answers, and a
   * response body can no longer be read once its page is gone: hold that POST until every
   * track request so far has been recorded.
   */
  async recordBeforeLeaving(pattern = '**/api/users'): Promise<void> {
    await this.context.route(pattern, async (route) => {
      await Promise.all(this.calls.map((c) => c.settled));
      await route.continue();
    });
  }

  clicks(): TrackCall[] {
    return this.calls.filter((c) => c.kind === 'click' && c.method === 'POST');
  }

  signups(): TrackCall[] {
    return this.calls.filter((c) => c.kind === 'signup' && c.method === 'POST');
  }

  /** Waits until `n` click requests were issued and answered (or failed); returns the last. */
  async clicked(n = 1): Promise<TrackCall> {
    await expect.poll(() => this.clicks().length, { message: `${n} click request(s)` }).toBeGreaterThanOrEqual(n);
    const call = this.clicks()[n - 1];
    await call.settled;
    return call;
  }

  async signedUp(n = 1): Promise<TrackCall> {
    await expect.poll(() => this.signups().length, { message: `${n} signup request(s)` }).toBeGreaterThanOrEqual(n);
    const call = this.signups()[n - 1];
    await call.settled;
    return call;
  }

  /** Opens a demo page and waits for svc's 'svc:ready' event (the initial click settled, or none was needed). */
  async arrive(path: string, page: Page = this.page): Promise<void> {
    await page.goto(path);
    await this.ready(page);
  }

  async ready(page: Page = this.page): Promise<void> {
    await page.waitForFunction(() => (globalThis as any).__svcReady === true, undefined, { timeout: 10_000 });
  }

  /** window.svc_data as the page sees it (undefined when the script never ran). */
  svcData(page: Page = this.page): Promise<SvcData | null | undefined> {
    return page.evaluate(() => (globalThis as any).svc_data);
  }

  /** The svc_data / svc_ref cookies the browser would send to `url` (the demo by default). */
  async referralCookies(url = this.demo.demoUrl) {
    const cookies = await this.context.cookies(url);
    const data = cookies.find((c) => c.name === 'svc_data');
    const ref = cookies.find((c) => c.name === 'svc_ref');
    return {
      data,
      ref,
      svcData: data ? (JSON.parse(decodeURIComponent(data.value)) as SvcData) : null,
      all: cookies.filter((c) => c.name.startsWith('svc_')),
    };
  }

  /**
   * Every request the page issued until now has been recorded: a marker request sent now is seen
   * after them (the browser reports requests in the order they are made). This is how a test
   * waits before asserting that no (further) track request was made, instead of sleeping.
   */
  async flush(page: Page = this.page): Promise<void> {
    const marker = `/favicon.ico?e2e-flush=${unique()}`;
    const seen = page.waitForRequest((r) => r.url().endsWith(marker));
    await page.evaluate(
      (url) =>
        fetch(url).then(
          () => undefined,
          () => undefined,
        ),
      marker,
    );
    await seen;
  }

  /** Failed requests (network errors, 5xx answers) matching `pattern` are part of the test, not a defect. */
  allowFailures(pattern: RegExp): void {
    this.expectedFailures.push(pattern);
  }

  /** Checked after every test by the automatic `healthy` fixture: no uncaught page error, no unexpected failed request. */
  expectHealthy(): void {
    const stayed = this.cancelled.filter((c) => this.navigationsOf(c.frame) === c.navigationsBefore).map((c) => c.failure);
    const unexpected = [...this.failedRequests, ...stayed].filter((f) => !this.expectedFailures.some((p) => p.test(f.url)));
    expect(
      {
        pageErrors: this.errors.map((e) => `${e.name}: ${e.message}`),
        failedRequests: unexpected.map((f) => `${f.method} ${f.url}: ${f.reason}`),
      },
      'uncaught errors in the page, and requests that failed unexpectedly',
    ).toEqual({ pageErrors: [], failedRequests: [] });
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

function parse(text: string | null | undefined): any {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Seconds since the epoch, like a cookie's `expires` in context.cookies(). */
export const nowSeconds = () => Date.now() / 1000;
export const DAY_SECONDS = 86_400;

/**
 * A cookie's `expires` (as context.cookies() gives it) is `maxAge` seconds after it was set, at a
 * moment between `since` (Date.now() before the request that set it) and now: bounds from the
 * clock, with a second for rounding, rather than a tolerance around now that a slow machine
 * could outlast.
 */
export function expectExpiresIn(expires: number, maxAge: number, since: number): void {
  expect(expires).toBeGreaterThanOrEqual(since / 1000 + maxAge - 1);
  expect(expires).toBeLessThanOrEqual(nowSeconds() + maxAge + 1);
}

// ---------------------------------------------------------------------------------------------

interface WorkerFixtures extends DemoOptions {
  demo: DemoState;
  api: Api;
}

interface TestFixtures {
  /** Every visitor the test opened; their browser contexts are closed after the test. */
  visitors: Visitor[];
  /** Automatic: after each test, every visitor's pages threw no uncaught error and no request failed unexpectedly. */
  // biome-ignore lint/suspicious/noConfusingVoidType: Playwright's type for a fixture that gives the test no value
  healthy: void;
  /** A new visitor (fresh browser context). */
  visitor: () => Promise<Visitor>;
  /** A fresh partner + link in the demo program. */
  referral: (param?: string) => Promise<Referral>;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  stateFile: ['', { option: true, scope: 'worker' }],
  demoPort: [0, { option: true, scope: 'worker' }],

  demo: [
    async ({ stateFile: file }, use) => {
      let state: DemoState | null = null;
      // main.ts writes the file right after the demo starts listening (which the webServer waits for).
      for (let i = 0; i < 100 && !state; i++) {
        state = await fs.readFile(file, 'utf8').then(JSON.parse, () => null);
        if (!state) await new Promise((r) => setTimeout(r, 100));
      }
      if (!state) throw new Error(`no demo state in ${file}`);
      await use(state);
    },
    { scope: 'worker' },
  ],

  api: [async ({ demo }, use) => use(apiClient(demo.ingestUrl, demo.api_key)), { scope: 'worker' }],

  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this parameter's destructuring
  visitors: async ({}, use) => {
    const opened: Visitor[] = [];
    await use(opened);
    await Promise.all(opened.map((v) => v.close()));
  },

  // Torn down before `visitors` (it depends on it), so the check sees the pages still open.
  healthy: [
    async ({ visitors }, use) => {
      await use();
      for (const v of visitors) v.expectHealthy();
    },
    { auto: true },
  ],

  visitor: async ({ browser, demo, baseURL, visitors }, use) => {
    await use(async () => {
      const v = await Visitor.open(browser, demo, baseURL ?? demo.demoUrl);
      visitors.push(v);
      return v;
    });
  },

  referral: async ({ api, demo }, use) => {
    await use((param = 'ref') => newReferral(api, demo.program_id, param));
  },
});

export { expect };
