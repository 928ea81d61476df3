import { sql } from 'kysely';
import supertest from 'supertest';
import { expect } from 'vitest';
import type { TestApp } from './harness.js';

/** Signing partners in to their portal in tests (ingest/docs/partner-portal.md). */

export type Agent = ReturnType<typeof supertest.agent>;

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The path of the newest sign-in link e-mailed to this address (read from the outbox table, before any encoding for sending). */
export async function signInLinkFor(t: TestApp, email: string): Promise<string> {
  const { rows } = await sql<{ text_body: string }>`
    select text_body from email_outbox
     where lower(to_address) = ${email.toLowerCase()} and kind = 'partner_sign_in_link'
     order by created_at desc, id desc limit 1`.execute(t.deps.db);
  const url = /https?:\/\/\S+\/sign-in\/[0-9A-Za-z]+/.exec(rows[0]?.text_body ?? '')?.[0];
  expect(url, `a sign-in link e-mailed to ${email}`).toBeDefined();
  return new URL(url!).pathname;
}

/** A partner of the program signed in through the sign-in form and the e-mailed link; the agent keeps the portal's cookie. */
export async function portalAgent(
  t: TestApp,
  program: { subdomain?: unknown },
  email: string,
): Promise<{ agent: Agent; csrf: string; base: string; home: string }> {
  const base = `/p/${String(program.subdomain)}`;
  const agent = supertest.agent(t.app);
  const asked = await agent.post(`${base}/sign-in`).type('form').send({ email });
  expect(asked.status, asked.text).toBe(200);
  const used = await agent
    .post(await signInLinkFor(t, email))
    .type('form')
    .send({});
  expect(used.status, used.text).toBe(303);
  const home = await agent.get(`${base}/`);
  expect(home.status, home.text).toBe(200);
  return { agent, csrf: csrfOf(home.text), base, home: home.text };
}
