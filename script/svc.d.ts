/**
 * The globals of svc.js, the partner-program tracking script. Copy this file into your project
 * (or add it to `include` / a `/// <reference path="…/svc.d.ts" />`) to type `window.svc` and
 * `window.svc_data`.
 *
 * @example
 * ```ts
 * // Wherever your page may run before svc.js has loaded: queue the call, it runs once loaded.
 * (window.svc = window.svc || []).push(['consent']);
 *
 * // At signup, once svc.js has loaded (after the 'svc:ready' event, or `'signup' in window.svc`):
 * if (window.svc_data && !window.svc_data.customer_id && window.svc && !Array.isArray(window.svc)) {
 *   try {
 *     const { customer_id, partner_id } = await window.svc.signup(email);
 *     // store customer_id and partner_id with your user: your server reports payments with them
 *   } catch (err) {
 *     if ((err as SvcError).status === 409) showMessage('This e-mail already has an account.');
 *   }
 * }
 * ```
 */

/** The referral kept in the `svc_data` cookie and in `window.svc_data`. */
interface SvcData {
  click_id: string;
  /** Days the referral lasts, counted from the click. */
  cookie_duration: number;
  partner_id: string;
  program_id: string;
  /** null until `svc.signup()` converted the click into a customer (a lead). */
  customer_id: string | null;
}

/** What `svc.signup()` resolves to. */
interface SvcSignupResult {
  click_id: string;
  customer_id: string;
  customer_identifier: string;
  partner_id: string;
  program_id: string;
  message: string;
}

/** What `svc.signup()` rejects with. */
interface SvcError extends Error {
  /** The HTTP status: 409 for an identifier that already has an account, 400 without a referral, 0 when the service cannot be reached. */
  status: number;
}

/** A call queued before svc.js loaded (or pushed after): the method name, then its arguments. */
type SvcCall = ['consent'] | ['signup', identifier: string];

/** `window.svc` once svc.js has loaded. */
interface Svc {
  /**
   * Turns the visitor's click into a lead: waits for a click still in flight, then converts the
   * referral the `svc_data` cookie holds at that moment (another tab may have taken a newer one
   * since this page loaded), resolves to the new customer and sets `window.svc_data` to that
   * referral with its `customer_id` (and the cookie, keeping its expiry). Rejects with an `SvcError`.
   */
  signup(identifier: string): Promise<SvcSignupResult>;
  /**
   * With `data-consent="required"`: the visitor agreed, so the referral in the URL is tracked and
   * kept in cookies. Resolves once that click has been answered (at once without one); never rejects.
   */
  consent(): Promise<void>;
  /** Runs one call, as the queue does: `svc.push(['consent'])`. Its result (or failure) is not returned. */
  push(call: SvcCall): void;
}

interface Window {
  /**
   * svc.js's API once loaded. Before that, your page may set it to an array and push calls
   * (`SvcCall`) into it: svc.js replays them in order when it loads. svc.js never replaces
   * anything else already there (such as another loaded copy of itself).
   */
  svc?: Svc | SvcCall[];
  /**
   * The visitor's referral: set from the cookie as soon as svc.js runs, null without one (or with a
   * cookie svc.js cannot trust, such as a damaged one); replaced when a click is answered, and
   * re-read from the cookie by `svc.signup()`.
   */
  svc_data?: SvcData | null;
}

interface WindowEventMap {
  /** Fired on `window` once svc.js has answered the page's click (or found none to make). */
  'svc:ready': Event;
}
