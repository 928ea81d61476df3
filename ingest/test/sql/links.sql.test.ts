import { describe, expect, it } from 'vitest';
import {
  findLink,
  findLinksByParamValue,
  insertLink,
  selectLinkList,
  selectLinks,
  softDeleteLink,
  softDeletePartnerLinks,
  updateLinkById,
} from '../../src/resources/links/links.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

describe('links repository SQL', () => {
  it('selectLinks', async () => {
    expect(await sqlOf((db) => selectLinks(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('findLink', async () => {
    expect(await sqlOf((db) => findLink(db, 'org_1', 'lnk_1'))).toMatchSnapshot();
  });

  it('selectLinkList: the program only', async () => {
    expect(await sqlOf((db) => selectLinkList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectLinkList: every filter', async () => {
    expect(
      await sqlOf((db) => selectLinkList(db, 'org_1', { programId: 'prg_1', partnerId: 'ptn_1', param: 'ref', value: 'Alice' }).execute()),
    ).toMatchSnapshot();
  });

  it('findLinksByParamValue: in one program', async () => {
    expect(
      await sqlOf((db) => findLinksByParamValue(db, { organizationId: 'org_1', programId: 'prg_1', param: 'ref', value: 'Alice' })),
    ).toMatchSnapshot();
  });

  it("findLinksByParamValue: across the organization's programs", async () => {
    expect(await sqlOf((db) => findLinksByParamValue(db, { organizationId: 'org_1', param: 'ref', value: 'Alice' }))).toMatchSnapshot();
  });

  it('insertLink', async () => {
    const link = {
      id: 'lnk_1',
      organization_id: 'org_1',
      program_id: 'prg_1',
      partner_id: 'ptn_1',
      param: 'ref',
      value: 'alice',
      created_at: AT,
      updated_at: AT,
    };
    expect(await sqlOf((db) => insertLink(db, link))).toMatchSnapshot();
  });

  it('updateLinkById', async () => {
    expect(await sqlOf((db) => updateLinkById(db, 'lnk_1', { param: 'via', value: 'alice2' }))).toMatchSnapshot();
  });

  it('softDeleteLink', async () => {
    expect(await sqlOf((db) => softDeleteLink(db, 'lnk_1'))).toMatchSnapshot();
  });

  it('softDeletePartnerLinks', async () => {
    expect(await sqlOf((db) => softDeletePartnerLinks(db, 'ptn_1', AT))).toMatchSnapshot();
  });
});
