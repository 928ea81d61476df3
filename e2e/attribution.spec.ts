import { expect, newReferral, partnerStats, SCRIPT_VERSION, type SvcData, test, unique } from './support/fixtures.js';

/**
 * Attribution models: a program made through the API, its own partners and links, and the demo
 * opened with ?svc_key=<that program's public key> (the script tag then carries it).
 */
for (const model of ['first_click', 'last_click'] as const) {
  test(`${model} program: a second partner link ${model === 'first_click' ? 'keeps the first partner' : 'takes over the referral'}`, async ({
    visitor,
    api,
  }) => {
    const program = (await api.post('/v1/programs', { name: `E2E ${model} ${unique()}`, attribution_model: model })).data[0];
    expect(program).toMatchObject({ attribution_model: model, cookie_duration: 30, public_key: expect.stringMatching(/^pk_/) });
    const first = await newReferral(api, program.id, 'ref');
    const second = await newReferral(api, program.id, 'via');
    const v = await visitor();

    await v.arrive(`${first.path}&svc_key=${program.public_key}`);
    const click1 = await v.clicked(1);
    expect(click1.body).toEqual({
      key: program.public_key,
      param: 'ref',
      value: first.value,
      page: `${v.demo.demoUrl}/?ref=${first.value}`,
      v: SCRIPT_VERSION,
    });
    const data1 = click1.response!.body.data as SvcData;
    expect(data1).toMatchObject({ partner_id: first.partnerId, program_id: program.id, customer_id: null });

    await v.arrive(`/pricing${second.path.slice(1)}&svc_key=${program.public_key}`);
    const click2 = await v.clicked(2);
    expect(click2.body).toEqual({
      key: program.public_key,
      param: 'via',
      value: second.value,
      page: `${v.demo.demoUrl}/pricing?via=${second.value}`,
      click_id: data1.click_id,
      v: SCRIPT_VERSION,
    });
    const data2 = click2.response!.body.data as SvcData;
    const expected =
      model === 'first_click' ? data1 : { ...data1, click_id: expect.not.stringMatching(data1.click_id), partner_id: second.partnerId };
    expect(data2).toEqual(expected);
    expect(await v.svcData()).toEqual(data2);
    expect((await v.referralCookies()).svcData).toEqual(data2);
    await expect(v.page.locator('#stripe-link')).toHaveAttribute(
      'href',
      `https://buy.stripe.com/test_acme_pro?client_reference_id=${data2.click_id}`,
    );

    // Both clicks are recorded either way; the model decides who gets the customer.
    expect((await partnerStats(api, first.partnerId)).total_clicks).toBe(1);
    expect((await partnerStats(api, second.partnerId)).total_clicks).toBe(1);
    const email = `${unique('fc')}@customers.example`;
    const result = await v.page.evaluate((e) => (globalThis as any).svc.signup(e), email);
    const winner = model === 'first_click' ? first : second;
    expect(result).toMatchObject({
      click_id: data2.click_id,
      partner_id: winner.partnerId,
      program_id: program.id,
      customer_identifier: email,
    });
    const customer = (await api.get(`/v1/customers/${result.customer_id}`)).data;
    expect(customer).toMatchObject({
      partner_id: winner.partnerId,
      program_id: program.id,
      click_id: data2.click_id,
      email,
      status: 'lead',
    });
  });
}
