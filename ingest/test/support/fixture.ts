import type { Test } from 'supertest';
import { afterAll, beforeAll } from 'vitest';
import { createOrganization, type TestOrg } from './factories.js';
import { createTestApp, type TestApp, type TestAppOptions } from './harness.js';

/** Names for an organization and its first program; left out, unique ones are made up. */
export interface OrgNames {
  org?: string;
  program?: string;
}

export interface UseTestAppOptions extends Omit<TestAppOptions, 'storage'> {
  /** How many organizations to make (each with a program and a secret key), or their names. */
  orgs?: number | OrgNames[];
  /** Another app of the file whose database and shared state this one uses (a second process). */
  sharesStorageWith?: TestApp;
}

export interface TestAppFixture {
  /** The app, ready from the describe's first beforeAll on. */
  t: TestApp;
  /** The organizations asked for, in order, ready with the app. */
  orgs: TestOrg[];
}

/**
 * The test app of a describe block with its organizations: registers a beforeAll that builds the
 * app (and the organizations asked for) and an afterAll that closes it. The objects returned are
 * filled in by that beforeAll, so they may be destructured at once and used from the tests and
 * later hooks:
 *
 *     const { t, orgs: [org, otherOrg] } = useTestApp({ orgs: 2 });
 */
export function useTestApp(options: UseTestAppOptions = {}): TestAppFixture {
  const { orgs: wanted = 0, sharesStorageWith, ...appOptions } = options;
  const names: OrgNames[] = typeof wanted === 'number' ? Array.from({ length: wanted }, () => ({})) : wanted;
  const t = {} as TestApp;
  const orgs = names.map(() => ({}) as TestOrg);
  beforeAll(async () => {
    Object.assign(t, await createTestApp({ ...appOptions, storage: sharesStorageWith?.storage }));
    for (const [i, n] of names.entries()) {
      Object.assign(orgs[i], n.org || n.program ? await t.newOrganization(n) : await createOrganization(t));
    }
  });
  afterAll(async () => {
    await t.close?.();
  });
  return { t, orgs };
}

/** A query as an object, or as a string (with or without its leading `?`). */
export type Query = string | Record<string, unknown>;

/**
 * Requests on one resource path as an organization; `who` asks as another one. Each returns the
 * supertest request, so a test may still add headers or look at the raw response.
 */
export interface ResourceClient {
  /** POST path. */
  post(body?: unknown, who?: TestOrg): Test;
  /** GET path/:id. */
  get(id: string, query?: Query, who?: TestOrg): Test;
  /** GET path. */
  list(query?: Query, who?: TestOrg): Test;
  /** PUT path/:id. */
  put(id: string, body?: unknown, who?: TestOrg): Test;
  /** DELETE path/:id. */
  del(id: string, who?: TestOrg): Test;
}

/** The client of a resource path (`/v1/partners`) bound to an organization's secret key. */
export function resource(t: TestApp, path: string, org: TestOrg): ResourceClient {
  const withQuery = (req: Test, query: Query | undefined) =>
    !query ? req : req.query(typeof query === 'string' ? query.replace(/^\?/, '') : query);
  return {
    post: (body, who = org) =>
      t.request
        .post(path)
        .set(who.auth)
        .send(body as object),
    get: (id, query, who = org) => withQuery(t.request.get(`${path}/${id}`).set(who.auth), query),
    list: (query, who = org) => withQuery(t.request.get(path).set(who.auth), query),
    put: (id, body, who = org) =>
      t.request
        .put(`${path}/${id}`)
        .set(who.auth)
        .send(body as object),
    del: (id, who = org) => t.request.delete(`${path}/${id}`).set(who.auth),
  };
}
