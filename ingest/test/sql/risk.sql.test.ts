import { describe, expect, it } from 'vitest';
import type { RiskEventRow } from '../../src/db/schema.js';
import {
  claimClickCheck,
  countOpenRiskEventsOfPartners,
  countOpenRiskEventsOfProgram,
  deleteOldPartnerBrowsers,
  findClickSignals,
  findPartnersPaidInto,
  findProgramRisk,
  findRiskEvent,
  floodedVisitors,
  heldRewardIds,
  insertRiskEvents,
  lockOpenEventsOfPartner,
  lockPayoutAccount,
  moneyHeldByEvents,
  partnerBrowserMatches,
  partnersWithoutPayoutAccount,
  pendingRewardIds,
  programsToCheck,
  refundFigures,
  rememberPartnerBrowser,
  resolveRiskEventRows,
  saveProgramRules,
  selectRiskEventList,
  setClickCheck,
  setPayoutAccount,
} from '../../src/resources/risk/risk.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');
const EVENT: RiskEventRow = {
  id: 'risk_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'part_1',
  rule: 'self_referral',
  status: 'open',
  holds: 'customer',
  click_id: 'clk_1',
  customer_id: 'cust_1',
  transaction_id: null,
  other_partner_id: null,
  visitor_hash: null,
  evidence: { matched: ['email'] } as never,
  dedupe_key: 'self_referral:cust_1',
  resolution: null,
  resolution_reason: null,
  resolved_at: null,
  created_at: AT,
  updated_at: AT,
};

describe('risk repository SQL', () => {
  it('the events: made once per dedupe key, listed with every filter, found, locked and resolved', async () => {
    const row = { ...EVENT, evidence: JSON.stringify(EVENT.evidence) };
    expect(await sqlOf((db) => insertRiskEvents(db, [row]))).toMatchSnapshot();
    expect(await sqlOf((db) => insertRiskEvents(db, []))).toBe('');
    const filters = { programId: 'prg_1', partnerId: 'part_1', rule: 'self_referral', status: 'open' };
    expect(await sqlOf((db) => selectRiskEventList(db, 'org_1', filters).execute())).toMatchSnapshot();
    expect(await sqlOf((db) => findRiskEvent(db, 'org_1', 'risk_1', true))).toMatchSnapshot();
    expect(await sqlOf((db) => lockOpenEventsOfPartner(db, 'part_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => resolveRiskEventRows(db, ['risk_1'], { resolution: 'dismiss', reason: null, now: AT }))).toMatchSnapshot();
  });

  it('what an event holds: its rewards a rejection may take, the money per event, the partner’s pending rewards', async () => {
    expect(await sqlOf((db) => heldRewardIds(db, EVENT))).toMatchSnapshot();
    expect(await sqlOf((db) => moneyHeldByEvents(db, ['risk_1', 'risk_2']))).toMatchSnapshot();
    expect(await sqlOf((db) => moneyHeldByEvents(db, []))).toBe('');
    expect(await sqlOf((db) => pendingRewardIds(db, 'part_1'))).toMatchSnapshot();
  });

  it('what the rules read and write', async () => {
    expect(await sqlOf((db) => findProgramRisk(db, 'prg_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => saveProgramRules(db, 'prg_1', { click_flooding: { enabled: false } }))).toMatchSnapshot();
    expect(await sqlOf((db) => lockPayoutAccount(db, 'prg_1', 'email:pay@example.com'))).toMatchSnapshot();
    expect(await sqlOf((db) => findPartnersPaidInto(db, 'prg_1', 'email:pay@example.com', 'part_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => partnerBrowserMatches(db, 'part_1', ['hash_1', 'hash_2']))).toMatchSnapshot();
    expect(await sqlOf((db) => partnerBrowserMatches(db, 'part_1', []))).toBe('');
    const browser = { partnerId: 'part_1', programId: 'prg_1', visitorHash: 'hash_1', now: AT };
    expect(await sqlOf((db) => rememberPartnerBrowser(db, browser))).toMatchSnapshot();
    expect(await sqlOf((db) => deleteOldPartnerBrowsers(db, AT))).toMatchSnapshot();
    expect(await sqlOf((db) => findClickSignals(db, 'clk_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => refundFigures(db, 'part_1', AT))).toMatchSnapshot();
  });

  it('the job: programs, old partners’ payout accounts, the click check claimed and moved, floods found', async () => {
    expect(await sqlOf((db) => programsToCheck(db))).toMatchSnapshot();
    expect(await sqlOf((db) => partnersWithoutPayoutAccount(db, 500))).toMatchSnapshot();
    expect(await sqlOf((db) => setPayoutAccount(db, 'part_1', 'email:pay@example.com'))).toMatchSnapshot();
    expect(await sqlOf((db) => claimClickCheck(db, 'prg_1', AT))).toMatchSnapshot();
    expect(await sqlOf((db) => setClickCheck(db, 'prg_1', AT))).toMatchSnapshot();
    expect(
      await sqlOf(
        (db) => floodedVisitors(db, 'prg_1', AT, AT, 20),
        () => [],
      ),
    ).toMatchSnapshot();
  });

  it('the dashboard’s counts of open events', async () => {
    expect(await sqlOf((db) => countOpenRiskEventsOfPartners(db, ['part_1', 'part_2']).execute())).toMatchSnapshot();
    expect(await sqlOf((db) => countOpenRiskEventsOfProgram(db, 'org_1', 'prg_1').execute())).toMatchSnapshot();
  });
});
