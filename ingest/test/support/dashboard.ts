import supertest from 'supertest';
import { expect } from 'vitest';
import { createUser } from '../../src/resources/users/users.service.js';
import { type TestOrg, uniqueEmail } from './factories.js';
import type { TestApp } from './harness.js';
import { type Agent, csrfOf } from './portal.js';

/** Signing users in to the dashboard in tests (ingest/docs/dashboard.md), as portal.ts does for partners. */

export { type Agent, csrfOf };

/** The password of every dashboard user the tests make. */
export const PASSWORD = 'correct horse battery';

export type Role = 'owner' | 'member';

/** A new user of the organization with a fresh e-mail address and PASSWORD; answers the address. */
export async function dashboardUser(t: TestApp, org: TestOrg, role: Role = 'owner'): Promise<string> {
  const email = uniqueEmail(role);
  await createUser(t.deps.db, org.organization_id, { email, role, password: PASSWORD });
  return email;
}

/**
 * A new user of the organization, signed in through the form: the agent keeps the session
 * cookie, and `csrf` is the session's token (read from the program's overview, which every role
 * may open).
 */
export async function dashboardAgent(
  t: TestApp,
  org: TestOrg,
  role: Role = 'owner',
): Promise<{ agent: Agent; csrf: string; email: string }> {
  const email = await dashboardUser(t, org, role);
  const agent = supertest.agent(t.app);
  const res = await agent.post('/dashboard/sign-in').type('form').send({ email, password: PASSWORD });
  expect(res.status, res.text).toBe(303);
  const page = await agent.get(`/dashboard/programs/${org.program_id}`);
  expect(page.status).toBe(200);
  return { agent, csrf: csrfOf(page.text), email };
}

/** The text of a page or a part of it: tags dropped, the entities the pages write undone, spaces collapsed. */
export const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
