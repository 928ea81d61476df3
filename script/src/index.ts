import { findReferral, trimPage, trimReferrer } from './attribution';
import { findTag, readConfig } from './config';
import { openJar, probeDomain, readData, writeData } from './cookies';
import { post } from './transport';

/**
 * svc.js: records a partner click, keeps it in first-party cookies, exposes `window.svc_data`
 * and `window.svc` (typed in ../svc.d.ts). It never throws into the page: every entry point is
 * guarded, and the only promise that can reject is the one `signup()` returns to its caller.
 */

const w = window;
const doc = document;

const noop = () => {};

const failure = (status: number, message: string): SvcError => Object.assign(new Error(message), { status });

function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // The host page must never see an error of ours.
  }
}

const STRIPE = 'a[href^="https://buy.stripe.com/"],stripe-pricing-table,stripe-buy-button';

function start(): void {
  // One owner of the global: a loaded svc (a second copy of the tag), or anything else that is
  // not a queue of calls, stays as it is, and this copy does nothing.
  const queued = w.svc || [];
  if (!Array.isArray(queued)) return;
  const cfg = readConfig(findTag());
  if (!cfg) return;
  // needsConsent: data-consent="required" until svc.consent(); domain: data-cookie-domain, else probed once.
  let [key, api, params, domain, needsConsent, stripe] = cfg;
  let tracked = '';
  let inflight: Promise<unknown> = Promise.resolve();

  // A referral cookie from an earlier visit shows that consent was given then: it may be updated.
  const stored = (w.svc_data = readData());
  // Probing writes a cookie, so it runs only once cookies may be written: at the first click (after
  // consent), or at a signup, which needs a referral, which needs consent or that earlier cookie.
  const cookieDomain = () => domain || (domain = probeDomain(location.hostname));

  /** Keeps svc_data in the cookies for max_age seconds, unless the API already set them (same-site mode). */
  function remember(body: any): void {
    if (!body.cookie && (!needsConsent || stored)) writeData(openJar(cookieDomain()), w.svc_data!, body.max_age);
  }

  /** Stripe Checkout reads the click id from client_reference_id (payment links, pricing tables, buy buttons). */
  function decorateAll(): void {
    const id = w.svc_data?.click_id;
    if (stripe && id) {
      doc.querySelectorAll<HTMLAnchorElement>(STRIPE).forEach((el) => {
        if (el.href) {
          const url = new URL(el.href);
          url.searchParams.set('client_reference_id', id);
          el.href = url.href;
        } else el.setAttribute('client-reference-id', id);
      });
    }
  }

  /** Records the referral in the URL, once per param=value, when consent allows; never throws. */
  const track = () =>
    guard(() => {
      const url = new URL(location.href);
      const ref = findReferral(url, params);
      const seen = String(ref);
      if (!ref || needsConsent || seen == tracked) return;
      tracked = seen;
      inflight = post(api, '/v1/track/click', {
        key,
        param: ref[0],
        value: ref[1],
        page: trimPage(url, ref),
        referrer: trimReferrer(doc.referrer),
        click_id: w.svc_data?.click_id,
        cookie_domain: cookieDomain(),
      })
        .then(([, body]) => {
          if (body.data) {
            w.svc_data = body.data;
            remember(body);
            decorateAll();
          }
        })
        .catch(noop);
    });

  async function signup(identifier: string): Promise<SvcSignupResult> {
    await inflight;
    const data = w.svc_data;
    if (!data) throw failure(400, 'No referral');
    const [status, body] = await post(api, '/v1/track/signup', { key, click_id: data.click_id, identifier, cookie_domain: cookieDomain() });
    if (!body.data) throw failure(status, body.error?.message || body.error);
    data.customer_id = body.data.customer_id;
    remember(body);
    return body.data;
  }

  const svc: Svc = {
    signup,
    consent() {
      needsConsent = false;
      track();
      return inflight as Promise<void>;
    },
    // Each method takes at most one argument and returns a promise; a queued call's failure is
    // nobody's to see, and a malformed call is dropped.
    push(call: SvcCall): void {
      guard(() => (svc[call[0]] as (arg?: string) => Promise<unknown>)(call[1]).catch(noop));
    },
  };
  w.svc = svc;

  // Single-page apps: a History API navigation that adds a tracking parameter is a new arrival.
  (['pushState', 'replaceState'] as const).forEach((name) => {
    const original = history[name];
    history[name] = (...args: Parameters<History['pushState']>) => {
      const result = original.apply(history, args);
      track();
      return result;
    };
  });
  addEventListener('popstate', track);

  if (stripe) {
    // Links and buttons added later: a change that adds nodes (not one that only removes some) looks again.
    new MutationObserver((records) => records.some((record) => record.addedNodes[0]) && guard(decorateAll)).observe(doc, { childList: true, subtree: true });
    decorateAll();
  }

  track();
  // Calls queued before the script loaded, in order (a queued signup waits for the click above).
  queued.forEach(svc.push);
  inflight.then(() => dispatchEvent(new Event('svc:ready')));
}

guard(start);
