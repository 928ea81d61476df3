import { customersOf, expect, expectClicks, test, uniqueEmail } from './support/fixtures.js';

/**
 * However the tag is added — `async` (the demo's pages), `defer`, or inserted by another script
 * after the page loaded — the script finds its settings, records the click and never blocks the
 * page. The merchant page here is served on the demo's origin (so /svc/* reaches ingest).
 */
const page = (head: string, body = '<p id="content">Acme</p>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

const tagAttributes = (publicKey: string) => `src="/svc/svc.js" data-key="${publicKey}" data-api="/svc"`;

const LOADERS = {
  defer: (key: string) => page(`<script defer ${tagAttributes(key)}></script>`),
  // A tag manager's way: created and appended after the page has loaded.
  inserted: (key: string) =>
    page(
      '',
      `<p id="content">Acme</p><script>
        addEventListener('load', () => {
          const s = document.createElement('script');
          s.src = '/svc/svc.js';
          s.dataset.key = ${JSON.stringify(key)};
          s.dataset.api = '/svc';
          document.head.appendChild(s);
        });
      </script>`,
    ),
  // Rendering does not wait for the script: the body is there while svc.js is still held back.
  blocked: (key: string) => page(`<script async ${tagAttributes(key)}></script>`, '<p id="content">Acme</p>'),
};

for (const [name, html] of Object.entries(LOADERS)) {
  test(`loaded ${name === 'blocked' ? 'async while the script is slow, the page renders first' : name}: the click is recorded`, async ({
    visitor,
    referral,
    demo,
    api,
  }) => {
    const link = await referral();
    const v = await visitor();
    await v.context.route('**/landing*', (route) => route.fulfill({ contentType: 'text/html', body: html(demo.public_key) }));
    let releaseScript = () => {};
    if (name === 'blocked') {
      const held = new Promise<void>((resolve) => (releaseScript = resolve));
      await v.context.route('**/svc/svc.js', async (route) => {
        await held;
        await route.continue();
      });
    }

    await v.page.goto(`/landing?${link.param}=${link.value}`, { waitUntil: 'domcontentloaded' });
    if (name === 'blocked') {
      await expect(v.page.locator('#content')).toHaveText('Acme');
      expect(await v.svcData()).toBeUndefined(); // the script has not run yet
      releaseScript();
    }
    const click = await v.clicked();
    await v.ready();

    expect(click.body).toMatchObject({
      key: demo.public_key,
      param: link.param,
      value: link.value,
      page: `${demo.demoUrl}/landing?${link.param}=${link.value}`,
    });
    expect(await v.svcData()).toMatchObject({ partner_id: link.partnerId, click_id: click.response!.body.data.click_id });
    expect((await v.referralCookies()).svcData?.click_id).toBe(click.response!.body.data.click_id);
    await expectClicks(api, link.partnerId, 1);
  });
}

test('calls queued in window.svc before svc.js loads run once it has: consent, then signup after the click', async ({
  visitor,
  referral,
  demo,
  api,
}) => {
  const link = await referral();
  const v = await visitor();
  await v.recordBeforeLeaving();
  const email = uniqueEmail('queued');
  // The documented stub: an array the page pushes into whether or not svc.js is there yet.
  const html = page(
    `<script>window.svc = window.svc || [];</script><script async ${tagAttributes(demo.public_key)} data-consent="required"></script>`,
    `<p id="content">Acme</p><script>
      window.svc.push(['consent']);
      window.svc.push(['signup', ${JSON.stringify(email)}]);
    </script>`,
  );
  await v.context.route('**/landing*', (route) => route.fulfill({ contentType: 'text/html', body: html }));
  let releaseScript = () => {};
  const held = new Promise<void>((resolve) => (releaseScript = resolve));
  await v.context.route('**/svc/svc.js', async (route) => {
    await held;
    await route.continue();
  });

  await v.page.goto(`/landing?${link.param}=${link.value}`, { waitUntil: 'domcontentloaded' });
  await expect(v.page.locator('#content')).toHaveText('Acme');
  expect(await v.page.evaluate(() => (globalThis as any).svc)).toEqual([['consent'], ['signup', email]]);
  expect(v.calls).toEqual([]);
  releaseScript();

  const click = await v.clicked();
  const signup = await v.signedUp();
  const data = click.response!.body.data;
  expect(signup.body).toMatchObject({ click_id: data.click_id, identifier: email });
  expect(signup.response?.status).toBe(201);
  const customerId = signup.response!.body.data.customer_id;
  await expect.poll(() => v.svcData()).toEqual({ ...data, customer_id: customerId });
  expect((await v.referralCookies()).svcData).toEqual({ ...data, customer_id: customerId });
  expect(await v.page.evaluate(() => Array.isArray((globalThis as any).svc) || typeof (globalThis as any).svc.signup)).toBe('function');

  // push keeps working once loaded, and nothing queued runs twice.
  await v.page.evaluate(() => (globalThis as any).svc.push(['consent']));
  await v.flush();
  expect(v.clicks()).toHaveLength(1);
  expect(v.signups()).toHaveLength(1);
  expect((await customersOf(api, demo.program_id, link.partnerId)).map((c) => [c.id, c.email])).toEqual([[customerId, email]]);
});

test('two copies of the tag: the first owns window.svc, one click per referral, History wrapped once', async ({
  visitor,
  referral,
  demo,
  api,
}) => {
  const link = await referral();
  const later = await referral('via');
  const v = await visitor();
  // Two URLs, so that the browser fetches and runs each copy.
  const tags = [`/svc/svc.js`, `/svc/svc.js?copy=2`].map(
    (src) => `<script async src="${src}" data-key="${demo.public_key}" data-api="/svc"></script>`,
  );
  await v.context.route('**/landing*', (route) => route.fulfill({ contentType: 'text/html', body: page(tags.join('')) }));
  const scripts: string[] = [];
  v.page.on('response', (r) => r.url().includes('/svc/svc.js') && r.status() === 200 && scripts.push(r.url()));

  // goto waits for the load event, which waits for both async scripts to have run.
  await v.page.goto(`/landing?${link.param}=${link.value}`);
  expect(scripts.sort()).toEqual([`${demo.demoUrl}/svc/svc.js`, `${demo.demoUrl}/svc/svc.js?copy=2`]);
  await v.clicked();
  await v.ready();
  await v.flush();
  expect(v.clicks()).toHaveLength(1);

  // A single-page navigation to another referral: one click, not one per copy.
  await v.page.evaluate((value) => (globalThis as any).history.pushState({}, '', `/landing?via=${value}`), later.value);
  await v.clicked(2);
  await v.flush();
  expect(v.clicks().map((c) => c.body.value)).toEqual([link.value, later.value]);
  await expectClicks(api, link.partnerId, 1);
  await expectClicks(api, later.partnerId, 1);
});
