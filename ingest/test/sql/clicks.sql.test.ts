import { describe, expect, it } from 'vitest';
import {
  type ClickInsert,
  findClick,
  findClickWithClaim,
  findProgramClick,
  findRecentLinkClick,
  findRecentProgramClick,
  insertClicks,
  setClickTime,
} from '../../src/resources/clicks/clicks.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

const click = (id: string): ClickInsert => ({
  id,
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'ptn_1',
  link_id: 'lnk_1',
  country: 'FR',
  state: null,
  device: 'desktop',
  page: 'https://acme.com/?ref=alice',
  browser: 'Chrome',
  referrer: null,
  created_at: AT,
  updated_at: AT,
});

describe('clicks repository SQL', () => {
  it('findClick', async () => {
    expect(await sqlOf((db) => findClick(db, 'org_1', 'clk_1'))).toMatchSnapshot();
  });

  it('insertClicks: several clicks in one statement', async () => {
    expect(await sqlOf((db) => insertClicks(db, [click('clk_1'), click('clk_2')]))).toMatchSnapshot();
  });

  it('findProgramClick', async () => {
    expect(await sqlOf((db) => findProgramClick(db, 'prg_1', 'clk_1'))).toMatchSnapshot();
  });

  it('findRecentLinkClick', async () => {
    expect(await sqlOf((db) => findRecentLinkClick(db, 'clk_1', 'lnk_1', AT))).toMatchSnapshot();
  });

  it('findRecentProgramClick', async () => {
    expect(await sqlOf((db) => findRecentProgramClick(db, 'clk_1', 'prg_1', AT))).toMatchSnapshot();
  });

  it('findClickWithClaim', async () => {
    expect(await sqlOf((db) => findClickWithClaim(db, 'clk_1'))).toMatchSnapshot();
  });

  it('setClickTime', async () => {
    expect(await sqlOf((db) => setClickTime(db, 'clk_1', AT))).toMatchSnapshot();
  });
});
