import { customersOf, expect, partnerStats, SCRIPT_VERSION, type SvcData, test, uniqueEmail } from './support/fixtures.js';

/** svc.signup(): the demo's signup form, duplicates, a click still in flight, and the whole way to a commission. */

test('signup through the demo form turns the click into a lead of the right partner', async ({ visitor, referral, api, demo }) => {
  const link = await referral('via');
  const v = await visitor();
  await v.recordBeforeLeaving();
  await v.arrive(link.path);
  const data = (await v.clicked()).response!.body.data as SvcData;
  const clickCookie = (await v.referralCookies()).data!;

  const email = uniqueEmail('lead');
  await v.page.getByRole('link', { name: 'Sign up' }).first().click();
  await v.ready();
  await v.page.locator('#email').fill(email);
  await v.page.getByRole('button', { name: 'Create my account' }).click();
  await v.page.waitForURL(`**/account?email=${encodeURIComponent(email)}`);

  const signup = await v.signedUp();
  expect(signup.url).toBe(`${demo.demoUrl}/svc/v1/track/signup`);
  expect(signup.headers['content-type']).toMatch(/^text\/plain/);
  expect(signup.body).toEqual({ key: demo.public_key, click_id: data.click_id, identifier: email, v: SCRIPT_VERSION });
  expect(signup.response?.status).toBe(201);
  const result = signup.response!.body.data;
  expect(result).toEqual({
    click_id: data.click_id,
    customer_id: expect.stringMatching(/^cust_/),
    customer_identifier: email,
    partner_id: link.partnerId,
    program_id: demo.program_id,
    message: 'Customer created',
  });
  await expect(v.page.locator('#customer-id')).toHaveText(result.customer_id);
  await expect(v.page.locator('#partner-id')).toHaveText(link.partnerId);

  // The cookie now carries the customer, and keeps the click's expiry.
  const cookies = await v.referralCookies();
  expect(cookies.svcData).toEqual({ ...data, customer_id: result.customer_id });
  expect(Math.abs(cookies.data!.expires - clickCookie.expires)).toBeLessThan(5);
  expect(await v.svcData()).toEqual({ ...data, customer_id: result.customer_id });

  const customer = (await api.get(`/v1/customers/${result.customer_id}`)).data;
  expect(customer).toMatchObject({
    id: result.customer_id,
    email,
    status: 'lead',
    partner_id: link.partnerId,
    program_id: demo.program_id,
    click_id: data.click_id,
  });
  const listed = await customersOf(api, demo.program_id, link.partnerId);
  expect(listed.map((c: any) => c.id)).toEqual([result.customer_id]);
  // Leads are not counted as customers in the partner's stats; the click is.
  expect(await partnerStats(api, link.partnerId)).toMatchObject({ total_clicks: 1, total_customers: 0 });

  // Signed up already: the form does not call svc.signup again for another account.
  await v.page.goto('/signup');
  await v.ready();
  await v.page.locator('#email').fill(uniqueEmail('second'));
  await v.page.getByRole('button', { name: 'Create my account' }).click();
  await v.page.waitForURL('**/account?email=*');
  expect(v.signups()).toHaveLength(1);
});

test('a duplicate signup is rejected with status 409 (case-insensitive), and no second customer exists', async ({
  visitor,
  referral,
  api,
  demo,
}) => {
  const link = await referral();
  const email = uniqueEmail('dup');

  const first = await visitor();
  await first.arrive(link.path);
  await first.clicked();
  const created = await first.page.evaluate((e) => (globalThis as any).svc.signup(e), email);
  expect(created.customer_identifier).toBe(email);

  const second = await visitor();
  await second.arrive(link.path);
  const data = (await second.clicked()).response!.body.data as SvcData;
  expect(data.click_id).not.toBe(created.click_id);
  const outcome = await second.page.evaluate(
    (e) =>
      (globalThis as any).svc.signup(e).then(
        () => 'resolved',
        (err: any) => ({ isError: err instanceof Error, status: err.status, message: err.message }),
      ),
    email.toUpperCase(),
  );
  expect(outcome).toEqual({ isError: true, status: 409, message: 'Customer already exists' });

  const rejected = await second.signedUp();
  expect(rejected.body).toEqual({ key: demo.public_key, click_id: data.click_id, identifier: email.toUpperCase(), v: SCRIPT_VERSION });
  expect(rejected.response?.status).toBe(409);
  expect(rejected.response?.body).toEqual({ success: false, error: { message: 'Customer already exists', type: 'conflict_error' } });
  // Nothing changed for the second visitor.
  expect(await second.svcData()).toEqual(data);
  expect((await second.referralCookies()).svcData).toEqual(data);

  // The demo's form says so and stops there.
  await second.page.goto('/signup');
  await second.ready();
  await second.page.locator('#email').fill(email);
  await second.page.getByRole('button', { name: 'Create my account' }).click();
  await expect(second.page.locator('#signup-result')).toHaveText('This e-mail already has an account.');
  expect(second.page.url()).toMatch(/\/signup$/);
  expect(second.signups()).toHaveLength(2);

  const customers = (await api.get(`/v1/customers?program_id=${demo.program_id}&search=${encodeURIComponent(email)}`)).data.data;
  expect(customers.map((c: any) => c.id)).toEqual([created.customer_id]);
});

test('svc.signup() called before the click returns waits for it, then succeeds', async ({ visitor, referral, api }) => {
  const link = await referral();
  const v = await visitor();
  // The click is held until the test releases it, after signup() has been called.
  let releaseClick = () => {};
  const held = new Promise<void>((resolve) => (releaseClick = resolve));
  let released = 0;
  await v.context.route('**/v1/track/click', async (route) => {
    await held;
    released = Date.now();
    await route.continue();
  });

  await v.page.goto(link.path, { waitUntil: 'commit' });
  await v.page.waitForFunction(() => typeof (globalThis as any).svc?.signup === 'function');
  await expect.poll(() => v.clicks().length, { message: 'the click is on its way' }).toBe(1);
  const email = uniqueEmail('early');
  const before = await v.page.evaluate((e) => {
    const w = globalThis as any;
    const state = { svc_data: w.svc_data, ready: w.__svcReady };
    w.__signup = w.svc.signup(e);
    return state;
  }, email);
  // The click was still in flight: no referral yet, svc:ready not fired, and signup() waits.
  expect(before).toEqual({ svc_data: null, ready: false });
  await v.flush();
  expect(v.signups()).toEqual([]);

  releaseClick();
  const result = await v.page.evaluate(() => (globalThis as any).__signup);
  const click = await v.clicked();
  const signup = await v.signedUp();
  // The signup request went out only once the held click had been released and answered.
  expect(signup.at).toBeGreaterThanOrEqual(released);
  expect(signup.at).toBeGreaterThanOrEqual(click.response!.at - 50);
  expect(signup.body.click_id).toBe(click.response!.body.data.click_id);
  expect(result).toMatchObject({
    click_id: click.response!.body.data.click_id,
    partner_id: link.partnerId,
    customer_identifier: email,
    message: 'Customer created',
  });
  expect(await v.svcData()).toMatchObject({ click_id: result.click_id, customer_id: result.customer_id });
  expect((await api.get(`/v1/customers/${result.customer_id}`)).data).toMatchObject({
    partner_id: link.partnerId,
    click_id: result.click_id,
    status: 'lead',
  });
});

test('full cycle: click → signup → pay → a 20% commission of $9.80 for the right partner', async ({ visitor, referral, api, demo }) => {
  const link = await referral();
  const v = await visitor();
  await v.recordBeforeLeaving();
  await v.arrive(link.path);
  const data = (await v.clicked()).response!.body.data as SvcData;

  const email = uniqueEmail('pays');
  await v.page.goto('/signup');
  await v.ready();
  await v.page.locator('#email').fill(email);
  await v.page.getByRole('button', { name: 'Create my account' }).click();
  await v.page.waitForURL('**/account?email=*');
  const customerId = (await v.signedUp()).response!.body.data.customer_id as string;
  await expect(v.page.locator('#customer-id')).toHaveText(customerId);

  await v.page.getByRole('button', { name: 'Pay $49 for Pro' }).click();
  await expect(v.page.locator('#partner-link')).toBeVisible();
  const paid = JSON.parse((await v.page.locator('#pay-result').textContent())!);
  expect(paid).toMatchObject({ paid: 4900, referred: true, partner_id: link.partnerId });
  expect(paid.commissions).toHaveLength(1);
  expect(paid.commissions[0]).toMatchObject({ amount: 980, revenue: 4900, customer_id: customerId, transaction_id: paid.transaction.id });

  // Through the API.
  const commissions = (await api.get(`/v1/commissions?program_id=${demo.program_id}&partner_id=${link.partnerId}`)).data;
  expect(commissions).toHaveLength(1);
  expect(commissions[0]).toMatchObject({
    id: paid.commissions[0].id,
    amount: 980,
    revenue: 4900,
    customer_id: customerId,
    transaction_id: paid.transaction.id,
  });
  const transactions = (await api.get(`/v1/transactions?program_id=${demo.program_id}&customer_id=${customerId}`)).data;
  expect(transactions).toHaveLength(1);
  expect(transactions[0]).toMatchObject({ amount: 4900, partner_id: link.partnerId, customer_id: customerId });
  const customer = (await api.get(`/v1/customers/${customerId}`)).data;
  expect(customer).toMatchObject({ partner_id: link.partnerId, click_id: data.click_id, email });
  expect(await partnerStats(api, link.partnerId)).toEqual({
    total_clicks: 1,
    total_customers: 1,
    total_revenue: 4900,
    total_commission: 980,
  });

  // And on the demo's partner page.
  await v.page.locator('#partner-link').click();
  await v.page.waitForURL(`**/partner?id=${link.partnerId}`);
  const row = v.page.locator(`#commissions tr[data-commission="${commissions[0].id}"]`);
  await expect(row).toContainText('$9.80');
  await expect(row).toContainText('$49.00');
  await expect(v.page.locator('#commissions tr[data-commission]')).toHaveCount(1);
  await expect(v.page.locator('#stats td[data-stat="total_commission"]')).toHaveText('$9.80');
  await expect(v.page.locator('#stats td[data-stat="total_revenue"]')).toHaveText('$49.00');
  await expect(v.page.locator('#stats td[data-stat="total_clicks"]')).toHaveText('1');
  await expect(v.page.locator('#stats td[data-stat="total_customers"]')).toHaveText('1');
});
