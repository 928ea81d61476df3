import { describe, expect, it } from 'vitest';
import {
  findPromotionCode,
  findPromotionCodes,
  insertPromotionCode,
  selectPromotionCodeList,
  selectPromotionCodes,
  softDeletePromotionCode,
  updatePromotionCodeById,
} from '../../src/resources/promotion-codes/promotion-codes.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

describe('promotion codes repository SQL', () => {
  it('selectPromotionCodes', async () => {
    expect(await sqlOf((db) => selectPromotionCodes(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('findPromotionCode', async () => {
    expect(await sqlOf((db) => findPromotionCode(db, 'org_1', 'promo_1'))).toMatchSnapshot();
  });

  it('findPromotionCodes: in one program', async () => {
    expect(await sqlOf((db) => findPromotionCodes(db, { organizationId: 'org_1', programId: 'prg_1', code: 'Alice20' }))).toMatchSnapshot();
  });

  it("findPromotionCodes: across the organization's programs", async () => {
    expect(await sqlOf((db) => findPromotionCodes(db, { organizationId: 'org_1', code: 'Alice20' }))).toMatchSnapshot();
  });

  it('selectPromotionCodeList: the program only', async () => {
    expect(await sqlOf((db) => selectPromotionCodeList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectPromotionCodeList: one partner', async () => {
    expect(
      await sqlOf((db) => selectPromotionCodeList(db, 'org_1', { programId: 'prg_1', partnerId: 'ptn_1' }).execute()),
    ).toMatchSnapshot();
  });

  it('insertPromotionCode', async () => {
    const code = {
      id: 'promo_1',
      organization_id: 'org_1',
      program_id: 'prg_1',
      code: 'ALICE20',
      type: 'percentage',
      value: 20,
      partner_id: 'ptn_1',
      group_id: null,
      active: true,
      created_at: AT,
      updated_at: AT,
    };
    expect(await sqlOf((db) => insertPromotionCode(db, code))).toMatchSnapshot();
  });

  it('updatePromotionCodeById', async () => {
    expect(await sqlOf((db) => updatePromotionCodeById(db, 'promo_1', { code: 'ALICE25', value: 25, active: false }))).toMatchSnapshot();
  });

  it('softDeletePromotionCode', async () => {
    expect(await sqlOf((db) => softDeletePromotionCode(db, 'promo_1'))).toMatchSnapshot();
  });
});
