import { findAdClickIds, findReferralOrInFragment, type Referral, trimPage, trimReferrer } from './attribution';
import { type Config, findTag, readConfig } from './config';
import { EXPIRED, openJar, PENDING, probeDomain, readCookie, readData, writeData } from './cookies';
import { post } from './transport';

/**
 * svc.js: records a partner click, keeps it in first-party cookies, exposes `window.svc_data`
 * and `window.svc` (typed in ../svc.d.ts). It never throws into the page: every entry point is
 * guarded, and the only promise that can reject is the one `signup()` returns to its caller.
 */

const w = window;

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
  // needsConsent: data-consent="required" until svc.consent(); domain: data-cookie-domain, else probed once.
  // No config (no public key): the empty tuple leaves `key` undefined.
  let [key, api, params, domain, needsConsent, stripe] = readConfig(findTag()) || ([] as unknown as Config);
  if (!key) return;
  // The referral last sent, as "param,value".
  let tracked: string | undefined;
  // A settled promise (shorter than Promise.resolve() in the build): no click in flight.
  let inflight: Promise<unknown> = (async () => {})();
  // True until the page's first History navigation: until then the page's referral may also be in
  // its landing URL or in a click an earlier page had no time to finish (see track).
  let landing = true;

  // A referral cookie from an earlier visit shows that consent was given then: it may be updated.
  let stored = (w.svc_data = readData());
  // Probing writes a cookie, so it runs only once cookies may be written: at the first click (after
  // consent), or at a signup, which needs a referral, which needs consent or that earlier cookie.
  const cookieDomain = () => domain || (domain = probeDomain(location.hostname));
  const jar = () => openJar(cookieDomain());

  /**
   * The visitor's newest referral: the cookie, which every tab shares, is newer than this tab's copy
   * read at load when another tab has taken a referral since (or signed up on it); the copy serves
   * when cookies are refused.
   */
  const latest = () => (readData() || w.svc_data) as SvcData | null;

  /** Keeps svc_data in the cookies for max_age seconds, unless the API already set them (same-site mode). */
  function remember(body: any): void {
    if (!body.cookie && (!needsConsent || stored)) writeData(jar(), w.svc_data!, body.max_age);
  }

  /** Stripe Checkout reads the click id from client_reference_id (payment links, pricing tables, buy buttons). */
  function decorateAll(): void {
    const id = w.svc_data?.click_id;
    if (stripe && id) {
      document.querySelectorAll<HTMLAnchorElement>(STRIPE).forEach((el) => {
        if (el.href) {
          const url = new URL(el.href);
          url.searchParams.set('client_reference_id', id);
          el.href = url as any; // serialized by the setter
        } else el.setAttribute('client-reference-id', id);
      });
    }
  }

  /**
   * Records the page's referral, once per param=value, when consent allows; never throws.
   *
   * The referral is the first found in: the current URL; else, until the first History navigation,
   * the landing URL (an inline script may have removed ?ref= with replaceState before this async
   * tag ran; the navigation entry keeps the URL as loaded), or the landing page of a click an
   * earlier page sent but left before it was answered (svc_pending). The click reports that URL:
   * its page, and the names of the ad click ids in its query (`ads`, for the paid-ad traffic rule).
   *
   * Until the answer is in, svc_pending holds the landing page: a visitor who leaves at once (the
   * click is still delivered, keepalive) loses no referral, since the next page sends it again and
   * the API answers a repeat within the hour with the same click.
   */
  const track = () =>
    guard(() => {
      let url!: URL;
      let ref: Referral | undefined;
      // The first URL with a referral (the later ones are not parsed).
      [
        location.href,
        landing && (performance.getEntriesByType('navigation')[0] as PerformanceEntry | undefined)?.name,
        landing && readCookie(PENDING),
      ].find((href) => href && (ref = findReferralOrInFragment((url = new URL(href)), params)));
      // `${ref}` is "param,value": the same referral is not sent twice (nor noted while consent is pending).
      if (!ref || needsConsent || tracked == (tracked = ref + '')) return;
      const page = trimPage(url, ref);
      jar()(PENDING, page);
      inflight = post(api, '/v1/track/click', {
        key,
        param: ref[0],
        value: ref[1],
        page,
        referrer: trimReferrer(document.referrer),
        click_id: latest()?.click_id,
        cookie_domain: cookieDomain(),
        ads: findAdClickIds(url),
      })
        .then(([, body]) => {
          jar()(PENDING, '', EXPIRED);
          if (body.data) {
            w.svc_data = body.data;
            remember(body);
            decorateAll();
          }
        })
        .catch(noop);
    });

  /** A History navigation: the landing URL and an earlier page's click no longer describe the page. */
  const navigated = () => {
    landing = false;
    track();
  };

  async function signup(identifier: string): Promise<SvcSignupResult> {
    await inflight;
    // A cookie read now shows consent as much as one read at load did.
    const data = (stored = w.svc_data = latest());
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
    // The call's result (undefined, as the spec says), once navigated() has run.
    history[name] = (...args: Parameters<History['pushState']>) => [original.apply(history, args), navigated()][0];
  });
  addEventListener('popstate', navigated);

  if (stripe) {
    // Links and buttons added later: a change that adds nodes (not one that only removes some) looks again.
    new MutationObserver((records) => records.some((record) => record.addedNodes[0]) && guard(decorateAll)).observe(document, {
      childList: true,
      subtree: true,
    });
    decorateAll();
  }

  track();
  // Calls queued before the script loaded, in order (a queued signup waits for the click above).
  queued.forEach(svc.push);
  inflight.then(() => dispatchEvent(new Event('svc:ready')));
}

guard(start);
