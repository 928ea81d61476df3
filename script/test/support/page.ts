/**
 * A page on happy-dom that loads svc.js (the source module, or the built IIFE) against a fake
 * API: fetch is stubbed, and everything the script leaves behind (History API wrappers, window
 * listeners, MutationObservers, globals, cookies, DOM) is undone by closePage().
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { clearCookies, setURL, spyCookieWrites } from './dom';

// (node:path, not URL: the global URL is happy-dom's here.)
export const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/svc.js');

/** The package version, which every payload carries as `v` (a build constant of the bundle). */
export const VERSION: string = JSON.parse(
  readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../package.json'), 'utf8'),
).version;

export type Loader = () => Promise<void>;

/** script/src/index.ts, evaluated afresh. */
export const loadSource: Loader = async () => {
  vi.resetModules();
  await import('../../src/index');
};

/** script/dist/svc.js as the browser gets it (an IIFE of global code). */
export const loadDist: Loader = async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` before the script tests`);
  new Function(readFileSync(DIST, 'utf8'))();
};

export type Reply = { status: number; body?: unknown } | Error;
export type Handler = (body: any) => Reply | Promise<Reply>;

export interface Call {
  url: string;
  init: RequestInit;
  body: any;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Lets everything the page has set going finish: happy-dom's timers and queued callbacks
 * (MutationObserver records, hashchange events), then the promise callbacks they set off (its
 * last step is a timer, which runs after them). It waits for that, not for a fixed time, so a
 * loaded machine cannot outrun it.
 */
export const settle = (): Promise<void> =>
  (globalThis as unknown as { happyDOM: { waitUntilComplete(): Promise<void> } }).happyDOM.waitUntilComplete();

/** Stubs fetch: `handlers` by API path (/v1/track/click, /v1/track/signup); an Error reply rejects. */
export function fakeApi(handlers: Record<string, Handler>) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body));
    calls.push({ url, init, body });
    const path = new URL(url, location.href).pathname.replace(/^.*(?=\/v1\/)/, '');
    const reply = handlers[path] ? await handlers[path](body) : { status: 404, body: { success: false, error: 'Not found' } };
    if (reply instanceof Error) throw reply;
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    return { status: reply.status, ok: reply.status < 300, json: async () => JSON.parse(text) } as unknown as Response;
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, calls };
}

export interface PageOptions {
  url: string;
  /** The script tag's attributes; src defaults to https://cdn.svc.test/svc.js. Null: no tag. */
  attrs: Record<string, string> | null;
  referrer?: string;
  html?: string;
  /** Runs just before the script loads, e.g. to queue calls in window.svc as a page may. */
  before?: () => void;
}

export interface Page {
  /** Every string the page assigned to document.cookie since the script started loading. */
  cookieWrites: string[];
  /** Resolves on the first 'svc:ready' event. */
  ready: Promise<Event>;
  readyFired(): boolean;
  /** The window listeners and MutationObservers the script's copies added while loading. */
  listeners: [string, EventListenerOrEventListenerObject][];
  observers: MutationObserver[];
  /** Runs another copy of the script on the same page (a second tag), recorded the same way. */
  loadAgain(): Promise<void>;
}

const originalAdd = globalThis.addEventListener;
const OriginalObserver = globalThis.MutationObserver;
let cleanups: (() => void)[] = [];

export async function openPage(load: Loader, options: PageOptions): Promise<Page> {
  setURL(options.url);
  Object.defineProperty(document, 'referrer', { configurable: true, get: () => options.referrer || '' });
  cleanups.push(() => void delete (document as any).referrer);
  document.body.innerHTML = options.html || '';
  if (options.attrs) {
    const tag = document.createElement('script');
    for (const [name, value] of Object.entries({ src: 'https://cdn.svc.test/svc.js', async: '', ...options.attrs })) {
      tag.setAttribute(name, value);
    }
    document.head.appendChild(tag);
  }

  let fired = false;
  const ready = new Promise<Event>((resolve) =>
    addEventListener(
      'svc:ready',
      (event) => {
        fired = true;
        resolve(event);
      },
      { once: true },
    ),
  );

  // Record what the script hooks into the window so that closePage() can unhook it.
  const listeners: [string, EventListenerOrEventListenerObject][] = [];
  const observers: MutationObserver[] = [];
  const spy = spyCookieWrites();
  cleanups.push(() => {
    spy.restore();
    for (const [type, listener] of listeners) removeEventListener(type, listener);
    for (const observer of observers) observer.disconnect();
    delete (history as any).pushState;
    delete (history as any).replaceState;
  });
  async function recorded(): Promise<void> {
    (globalThis as any).addEventListener = (type: string, listener: EventListenerOrEventListenerObject, opts?: unknown) => {
      listeners.push([type, listener]);
      return originalAdd.call(window, type, listener, opts as AddEventListenerOptions);
    };
    (globalThis as any).MutationObserver = class extends OriginalObserver {
      constructor(callback: MutationCallback) {
        super(callback);
        observers.push(this);
      }
    };
    try {
      await load();
    } finally {
      (globalThis as any).addEventListener = originalAdd;
      (globalThis as any).MutationObserver = OriginalObserver;
    }
  }
  options.before?.();
  await recorded();
  return { cookieWrites: spy.writes, ready, readyFired: () => fired, listeners, observers, loadAgain: recorded };
}

export function closePage(): void {
  for (const fn of cleanups.splice(0).reverse()) fn();
  const w = window as any;
  delete w.svc;
  delete w.svc_data;
  clearCookies();
  document.head.innerHTML = '';
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
  cleanups = [];
}
