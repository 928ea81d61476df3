import { describe, expect, it } from 'vitest';
import { loadPartnerStats } from '../../src/resources/partners/partner-stats.js';
import {
  countPartnerList,
  findPartner,
  findPartnerByEmail,
  findProgramPartnerIds,
  insertPartner,
  lockPartner,
  movePartnersToGroup,
  selectPartnerList,
  selectPartnerStats,
  selectPartners,
  selectRankedPartners,
  softDeletePartner,
  updatePartnerRow,
} from '../../src/resources/partners/partners.repository.js';
import { listPartners } from '../../src/resources/partners/partners.service.js';
import { sqlOf } from '../support/sql-recorder.js';

const NOW = new Date('2026-01-01T00:00:00Z');

/** The program lookup answers with program prg_1, counts with 0, the page with no partners. */
const listRows = (query: string) => (query.includes('count(*)') ? [{ n: 0 }] : query.startsWith('select "p".*') ? [{ id: 'prg_1' }] : []);

describe('partners repository SQL', () => {
  it('selectPartners', async () => {
    expect(await sqlOf((db) => selectPartners(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('selectPartnerList without filters: onboarding partners are left out', async () => {
    expect(await sqlOf((db) => selectPartnerList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectPartnerList by group and status', async () => {
    const filters = { programId: 'prg_1', groupId: 'grp_1', status: 'active' };
    expect(await sqlOf((db) => selectPartnerList(db, 'org_1', filters).execute())).toMatchSnapshot();
  });

  it('selectPartnerList by search: name or e-mail, % and _ literal, within the other filters', async () => {
    const filters = { programId: 'prg_1', status: 'active', search: '50%_off' };
    expect(await sqlOf((db) => selectPartnerList(db, 'org_1', filters).execute())).toMatchSnapshot();
  });

  it('selectRankedPartners and countPartnerList: the dashboard ranking by a counter, by offset', async () => {
    const filters = { programId: 'prg_1', search: 'ann' };
    expect(await sqlOf((db) => selectRankedPartners(db, 'org_1', filters, 'revenue', 25, 50))).toMatchSnapshot();
    expect(
      await sqlOf(
        (db) => countPartnerList(db, 'org_1', filters),
        () => [{ n: 0 }],
      ),
    ).toMatchSnapshot();
  });

  it('selectPartnerList by e-mail: onboarding partners are found too', async () => {
    expect(
      await sqlOf((db) => selectPartnerList(db, 'org_1', { programId: 'prg_1', email: 'Alice@Example.com' }).execute()),
    ).toMatchSnapshot();
  });

  it('findPartner', async () => {
    expect(await sqlOf((db) => findPartner(db, 'org_1', 'part_1'))).toMatchSnapshot();
  });

  it('findPartnerByEmail', async () => {
    expect(await sqlOf((db) => findPartnerByEmail(db, 'prg_1', 'Alice@Example.com'))).toMatchSnapshot();
  });

  it('insertPartner', async () => {
    const partner = {
      id: 'part_1',
      organization_id: 'org_1',
      program_id: 'prg_1',
      group_id: 'grp_1',
      status: 'active',
      first_name: 'Alice',
      last_name: 'Smith',
      email: 'alice@example.com',
      company_name: null,
      country_code: null,
      payout_method: 'paypal',
      payout_details: JSON.stringify({ email: 'alice@example.com' }),
      completed_onboarding: true,
      rejection_note: null,
      internal_note: null,
      suspension_reason: null,
      first_customer_email_active: true,
      new_customer_email_active: true,
      payout_paid_email_active: true,
      created_at: NOW,
      updated_at: NOW,
    };
    expect(await sqlOf((db) => insertPartner(db, partner))).toMatchSnapshot();
  });

  it('updatePartnerRow', async () => {
    const changes = { first_name: 'Alicia', payout_details: JSON.stringify({}), updated_at: NOW };
    expect(await sqlOf((db) => updatePartnerRow(db, 'part_1', changes))).toMatchSnapshot();
  });

  it('softDeletePartner', async () => {
    expect(await sqlOf((db) => softDeletePartner(db, 'part_1', NOW))).toMatchSnapshot();
  });

  it('movePartnersToGroup', async () => {
    expect(await sqlOf((db) => movePartnersToGroup(db, 'grp_1', 'grp_default', NOW))).toMatchSnapshot();
  });

  it('selectPartnerStats', async () => {
    expect(await sqlOf((db) => selectPartnerStats(db, ['part_1', 'part_2']))).toMatchSnapshot();
  });

  it('loadPartnerStats asks nothing for no partners', async () => {
    expect(await sqlOf((db) => loadPartnerStats(db, []))).toBe('');
  });
});

describe('partners service SQL', () => {
  it('listPartners: program check, page and count', async () => {
    const query = { program_id: 'prg_1', status: 'active' as const, limit: 20 };
    expect(await sqlOf((db) => listPartners(db, 'org_1', query), listRows)).toMatchSnapshot();
  });

  it('lockPartner', async () => {
    expect(await sqlOf((db) => lockPartner(db, 'ptn_1'))).toMatchSnapshot();
  });

  it('findProgramPartnerIds', async () => {
    expect(await sqlOf((db) => findProgramPartnerIds(db, 'org_1', 'prg_1', ['part_1', 'part_2']))).toMatchSnapshot();
  });
});
