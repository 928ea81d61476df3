import fs from 'node:fs';
import http from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { freePort, ROOT } from './processes.js';

const RUNS = 15;

/** Records performance.now() (ms since navigation start) when window.svc_data is first set to a referral. */
const RECORD_SVC_DATA = `
  let data = null;
  Object.defineProperty(window, 'svc_data', {
    configurable: true,
    get: () => data,
    set(v) {
      data = v;
      if (v && window.__svcDataAt === undefined) window.__svcDataAt = performance.now();
    },
  });`;
const CHROMIUM = '/usr/bin/chromium';

/**
 * The script's size, and in Chromium the median time from navigation start to window.svc_data
 * being set on a `?ref=` landing served from localhost (fresh browser context each time).
 */
export async function scriptFigures(ingestUrl: string, publicKey: string, value: string, userAgent: string) {
  const code = fs.readFileSync(`${ROOT}/script/dist/svc.js`);
  const port = await freePort();
  const page = `<!doctype html><html><head><script async src="${ingestUrl}/svc.js" data-key="${publicKey}"></script></head><body><p>Acme</p></body></html>`;
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page)).listen(port, '127.0.0.1');
  const browser = await chromium.launch({
    executablePath: fs.existsSync(CHROMIUM) ? CHROMIUM : undefined,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ userAgent: `${userAgent} landing/${i}` });
      // As a string: a function would be serialised with the helpers tsx compiles into it.
      await context.addInitScript({ content: RECORD_SVC_DATA });
      const tab = await context.newPage();
      await tab.goto(`http://localhost:${port}/?ref=${value}`);
      await tab.waitForFunction('window.__svcDataAt !== undefined', undefined, { timeout: 10_000 });
      times.push((await tab.evaluate('window.__svcDataAt')) as number);
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  times.sort((a, b) => a - b);
  return {
    rawBytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    brotliBytes: brotliCompressSync(code).length,
    runs: RUNS,
    medianMs: Number(times[Math.floor(RUNS / 2)].toFixed(1)),
  };
}
