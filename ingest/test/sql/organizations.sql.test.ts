import { describe, expect, it } from 'vitest';
import { findOrganization, insertOrganization, someOrganizations } from '../../src/resources/organizations/organizations.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

describe('organizations repository SQL', () => {
  it('insertOrganization', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const organization = { id: 'org_1', name: 'Acme', created_at: now, updated_at: now };
    expect(await sqlOf((db) => insertOrganization(db, organization))).toMatchSnapshot();
  });

  it('findOrganization', async () => {
    expect(await sqlOf((db) => findOrganization(db, 'org_1'))).toMatchSnapshot();
  });

  it('someOrganizations', async () => {
    expect(await sqlOf((db) => someOrganizations(db, 2))).toMatchSnapshot();
  });
});
