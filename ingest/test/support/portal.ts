import supertest from 'supertest';
import { expect } from 'vitest';
import type { TestApp } from './harness.js';
import { signInLinkCausedBy } from './outbox.js';

/** Signing partners in to their portal in tests (ingest/docs/partner-portal.md). */

export type Agent = ReturnType<typeof supertest.agent>;

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A partner of the program signed in through the sign-in form and the e-mailed link; the agent keeps the portal's cookie. */
export async function portalAgent(
  t: TestApp,
  program: { subdomain?: unknown },
  email: string,
): Promise<{ agent: Agent; csrf: string; base: string; home: string }> {
  const base = `/p/${String(program.subdomain)}`;
  const agent = supertest.agent(t.app);
  const link = await signInLinkCausedBy(t, email, async () => {
    const asked = await agent.post(`${base}/sign-in`).type('form').send({ email });
    expect(asked.status, asked.text).toBe(200);
  });
  const used = await agent.post(link).type('form').send({});
  expect(used.status, used.text).toBe(303);
  const home = await agent.get(`${base}/`);
  expect(home.status, home.text).toBe(200);
  return { agent, csrf: csrfOf(home.text), base, home: home.text };
}
