import { expect, expectClicks, test } from './support/fixtures.js';

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
  test(`loaded ${name === 'blocked' ? 'async while the script is slow, the page renders first' : name}: the click is recorded`, async ({ visitor, referral, demo, api }) => {
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

    expect(click.body).toMatchObject({ key: demo.public_key, param: link.param, value: link.value, page: `${demo.demoUrl}/landing?${link.param}=${link.value}` });
    expect(await v.svcData()).toMatchObject({ partner_id: link.partnerId, click_id: click.response!.body.data.click_id });
    expect((await v.referralCookies()).svcData?.click_id).toBe(click.response!.body.data.click_id);
    await expectClicks(api, link.partnerId, 1);
    v.expectNoPageErrors();
  });
}
