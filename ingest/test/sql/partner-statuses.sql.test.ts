import { describe, expect, it } from 'vitest';
import { countPartnersAwaitingReview, lockProgramPartners, updatePartnerRows } from '../../src/resources/partners/partners.repository.js';
import { changePartnerStatuses } from '../../src/resources/partners/partners.service.js';
import { sqlOf } from '../support/sql-recorder.js';

const NOW = new Date('2026-01-01T00:00:00Z');

/** The program lookup answers prg_1; the lock finds both partners pending. */
const statusRows = (query: string) =>
  query.includes('from "programs"')
    ? [{ id: 'prg_1' }]
    : query.includes('for update')
      ? [
          { id: 'ptn_1', status: 'pending' },
          { id: 'ptn_2', status: 'pending' },
        ]
      : [{}];

describe('partner status changes and the count awaiting review: SQL', () => {
  it('lockProgramPartners: the program’s live partners, locked in id order', async () => {
    expect(await sqlOf((db) => lockProgramPartners(db, 'org_1', 'prg_1', ['ptn_2', 'ptn_1']))).toMatchSnapshot();
  });

  it('updatePartnerRows: one statement for every partner', async () => {
    expect(
      await sqlOf((db) => updatePartnerRows(db, ['ptn_1', 'ptn_2'], { status: 'rejected', rejection_note: 'No', updated_at: NOW })),
    ).toMatchSnapshot();
  });

  it('changePartnerStatuses: the program, then the lock and one update in one transaction', async () => {
    expect(
      await sqlOf((db) => changePartnerStatuses(db, 'org_1', 'prg_1', { ids: ['ptn_2', 'ptn_1'], action: 'approve' }), statusRows),
    ).toMatchSnapshot();
  });

  it('countPartnersAwaitingReview: literals the partial index of migration 0015 matches', async () => {
    expect(await sqlOf((db) => countPartnersAwaitingReview(db, 'org_1').execute())).toMatchSnapshot();
  });
});
