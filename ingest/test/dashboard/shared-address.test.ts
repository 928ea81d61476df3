import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS, SIGN_IN_WINDOW_SECONDS } from '../../src/dashboard/dashboard.routes.js';
import { sha256 } from '../../src/ids.js';
import { PORTAL_LIMITS, PORTAL_WINDOW_SECONDS } from '../../src/portal/portal.routes.js';
import { type Agent, dashboardUser, PASSWORD } from '../support/dashboard.js';
import { createPartner, createProgram, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';
import { signInLinkCausedBy } from '../support/outbox.js';

/**
 * Sign-in limits per client address never lock out a browser that signed in before
 * (ingest/docs/api.md#shared-addresses): behind one shared address (an office, a carrier's NAT),
 * someone who fails on purpose uses up the address's budget, and the people there who signed in
 * before go on signing in, counted on their own. The address's budget is used up here through the
 * shared store, as the attacker's failures would (each failure costs a password hash: a hundred
 * would be slow).
 */

const NAT = { 'X-Forwarded-For': '192.0.2.77' };

/** Takes every point of a limiter for `key`, as that many failures would. */
async function useUp(t: TestApp, name: string, points: number, windowSeconds: number, key: string, taken = points) {
  const limiter = t.deps.store.createRateLimiter({ name, points, windowSeconds });
  for (let i = 0; i < taken; i++) await limiter.consume(key);
}

describe('a shared address', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1, env: { SVC_TRUST_PROXY: 'true' } });

  const dashboardSignIn = (agent: Agent, email: string, password: string) =>
    agent.post('/dashboard/sign-in').set(NAT).type('form').send({ email, password });

  it('dashboard: a browser that signed in before gets in past the address limit and past failures on its account; a new browser does not', async () => {
    const email = await dashboardUser(t, org);
    const known = supertest.agent(t.app);
    const first = await dashboardSignIn(known, email, PASSWORD);
    expect(first.status).toBe(303);
    const deviceToken = /svc_device=([0-9A-Za-z]+)/.exec(String(first.headers['set-cookie']))?.[1];
    expect(deviceToken).toBeDefined();

    // Someone at the same address fails on every account they can think of, this one included.
    await useUp(t, 'sign-in-client', SIGN_IN_LIMITS.client, SIGN_IN_WINDOW_SECONDS, '192.0.2.77');
    await useUp(t, 'sign-in-email', SIGN_IN_LIMITS.email, SIGN_IN_WINDOW_SECONDS, email.toLowerCase());
    const stranger = await dashboardSignIn(supertest.agent(t.app), email, PASSWORD);
    expect(stranger.status).toBe(429);

    const again = await dashboardSignIn(known, email, PASSWORD);
    expect(again.status, again.text).toBe(303);

    // The known browser's own failures are limited all the same.
    expect((await dashboardSignIn(known, email, 'guess')).status).toBe(401);
    await useUp(t, 'sign-in-device', SIGN_IN_LIMITS.device, SIGN_IN_WINDOW_SECONDS, sha256(deviceToken!), SIGN_IN_LIMITS.device - 1);
    expect((await dashboardSignIn(known, email, PASSWORD)).status).toBe(429);
  });

  it('portal: a browser that signed in before gets a sign-in link past the address limit; a new browser does not', async () => {
    const program = await createProgram(t, org, { type: 'public' });
    const partner = await createPartner(t, org, { program_id: program.id, email: uniqueEmail('partner') });
    const base = `/p/${program.subdomain}`;
    const askLink = (agent: Agent) => agent.post(`${base}/sign-in`).set(NAT).type('form').send({ email: partner.email });
    const known = supertest.agent(t.app);
    const link = await signInLinkCausedBy(t, partner.email, async () => expect((await askLink(known)).status).toBe(200));
    expect((await known.post(link).set(NAT).type('form').send({})).status).toBe(303);

    await useUp(t, 'portal-link-client', PORTAL_LIMITS.linkPerClient, PORTAL_WINDOW_SECONDS, '192.0.2.77');
    expect((await askLink(supertest.agent(t.app))).status).toBe(429);
    const again = await askLink(known);
    expect(again.status, again.text).toBe(200);
    expect(again.text).toContain('Check your e-mail');
  });
});
