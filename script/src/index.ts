import { findReferral, trimPage, trimReferrer, type Referral } from './attribution';
import { findTag, readConfig } from './config';
import { openJar, probeDomain, readData, writeData, type Jar, type SvcData } from './cookies';
import { post } from './transport';

/**
 * svc.js: records a partner click, keeps it in first-party cookies, exposes `window.svc_data`
 * and `window.svc.signup()`. It never throws into the page: every entry point is guarded, and
 * the only promise that can reject is the one `signup()` returns to its caller.
 */

interface SvcError extends Error {
  status: number;
}

const w = window as any;
const doc = document;

const failure = (status: number, message: string): SvcError => Object.assign(new Error(message), { status });

function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // The host page must never see an error of ours.
  }
}

function start(): void {
  const cfg = readConfig(findTag(doc));
  if (!cfg) return;
  const { key, api, params, stripe } = cfg;
  const secure = location.protocol == 'https:';
  let consented = !cfg.consent;
  let domain = cfg.domain;
  // Probing writes a cookie, so it waits for consent: it runs at the first click.
  const cookieDomain = () => domain || (domain = probeDomain(location.hostname));
  let jar: Jar | undefined;
  let tracked = '';
  let inflight: Promise<unknown> = Promise.resolve();

  w.svc_data = readData();

  /** Keeps svc_data in the cookies (one js-cookie instance), unless the API already set them (same-site mode). */
  function remember(body: any): void {
    if (!body.cookie && consented) writeData((jar = jar || openJar(cookieDomain(), secure)), w.svc_data, body.max_age / 86400);
  }

  /** Stripe Checkout reads the click id from client_reference_id (payment links, pricing tables, buy buttons). */
  function decorateStripe(): void {
    const id = (w.svc_data || {}).click_id;
    if (stripe && id) {
      doc.querySelectorAll<HTMLAnchorElement>('a[href^="https://buy.stripe.com/"],stripe-pricing-table,stripe-buy-button').forEach((el) => {
        if (el.href) {
          const url = new URL(el.href);
          url.searchParams.set('client_reference_id', id);
          el.href = url.href;
        } else el.setAttribute('client-reference-id', id);
      });
    }
  }

  function track(): void {
    const url = new URL(location.href);
    const ref: Referral | null = findReferral(url, params);
    const seen = ref && ref.param + '=' + ref.value;
    if (!ref || !consented || seen == tracked) return;
    tracked = seen!;
    inflight = post(api, '/v1/track/click', {
      key,
      param: ref.param,
      value: ref.value,
      page: trimPage(url, ref),
      referrer: trimReferrer(doc.referrer),
      click_id: (w.svc_data || {}).click_id,
      cookie_domain: cookieDomain(),
    })
      .then(([, body]) => {
        if (body.data) {
          w.svc_data = body.data;
          remember(body);
          decorateStripe();
        }
      })
      .catch(() => {});
  }

  async function signup(identifier: string): Promise<unknown> {
    await inflight;
    const data: SvcData | null = w.svc_data;
    if (!data) throw failure(400, 'No referral');
    const [status, body] = await post(api, '/v1/track/signup', { key, click_id: data.click_id, identifier, cookie_domain: cookieDomain() });
    if (!body.data) throw failure(status, (body.error || {}).message || body.error);
    data.customer_id = body.data.customer_id;
    remember(body);
    return body.data;
  }

  w.svc = {
    signup,
    consent(): void {
      guard(() => {
        consented = true;
        track();
      });
    },
  };

  // Single-page apps: a History API navigation that adds a tracking parameter is a new arrival.
  (['pushState', 'replaceState'] as const).forEach((name) => {
    const original = history[name];
    history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      guard(track);
      return result;
    };
  });
  addEventListener('popstate', () => guard(track));

  if (stripe) {
    new MutationObserver(() => guard(decorateStripe)).observe(doc.documentElement, { childList: true, subtree: true });
    decorateStripe();
  }

  track();
  inflight.then(() => dispatchEvent(new Event('svc:ready')));
}

guard(start);
