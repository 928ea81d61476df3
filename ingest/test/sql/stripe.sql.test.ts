import { describe, expect, it } from 'vitest';
import {
  deleteIntegration,
  findEvent,
  findIntegration,
  findIntegrationOfProgram,
  findLinks,
  findWaitingEvents,
  forgetWaitingPayloads,
  insertLinks,
  lockProgramEvents,
  saveEvent,
  saveEventError,
  selectStripeEventList,
  summarizeEvents,
  upsertIntegration,
  upsertPromotionCodeLink,
} from '../../src/resources/stripe/stripe.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

const record = {
  program_id: 'prg_1',
  organization_id: 'org_1',
  event_id: 'evt_1',
  type: 'invoice.paid',
  livemode: false,
  api_version: '2026-10-28.endive',
  stripe_created_at: AT,
  status: 'ignored',
  reason: 'unknown_customer',
  message: 'Invoice in_1: no click, svc metadata or partner promotion code attributes this customer',
  customer_id: null,
  transaction_id: null,
  waiting_for: ['cus_1'],
  payload: { id: 'evt_1' },
};

describe('stripe repository SQL', () => {
  it('findIntegration', async () => {
    expect(await sqlOf((db) => findIntegration(db, 'org_1', 'prg_1'))).toMatchSnapshot();
  });

  it('findIntegrationOfProgram', async () => {
    expect(await sqlOf((db) => findIntegrationOfProgram(db, 'prg_1'))).toMatchSnapshot();
  });

  it('upsertIntegration', async () => {
    const row = { program_id: 'prg_1', organization_id: 'org_1', webhook_secret: 'whsec_test', tax_counts_as_revenue: false };
    expect(await sqlOf((db) => upsertIntegration(db, row, AT))).toMatchSnapshot();
  });

  it('deleteIntegration', async () => {
    expect(await sqlOf((db) => deleteIntegration(db, 'prg_1'))).toMatchSnapshot();
  });

  it('summarizeEvents', async () => {
    expect(await sqlOf((db) => summarizeEvents(db, 'prg_1'))).toMatchSnapshot();
  });

  it('selectStripeEventList: filtered by status and type', async () => {
    expect(
      await sqlOf((db) => selectStripeEventList(db, { programId: 'prg_1', status: 'ignored', type: 'invoice.paid' }).execute()),
    ).toMatchSnapshot();
  });

  it('lockProgramEvents', async () => {
    expect(await sqlOf((db) => lockProgramEvents(db, 'prg_1'))).toMatchSnapshot();
  });

  it('findEvent', async () => {
    expect(await sqlOf((db) => findEvent(db, 'prg_1', 'evt_1'))).toMatchSnapshot();
  });

  it('saveEvent', async () => {
    expect(await sqlOf((db) => saveEvent(db, record, AT))).toMatchSnapshot();
  });

  it('saveEventError: only over an earlier error', async () => {
    expect(await sqlOf((db) => saveEventError(db, { ...record, status: 'error', reason: 'processing_error' }, AT))).toMatchSnapshot();
  });

  it('findWaitingEvents', async () => {
    expect(await sqlOf((db) => findWaitingEvents(db, 'prg_1', ['cus_1', 'in_1']))).toMatchSnapshot();
  });

  it('forgetWaitingPayloads', async () => {
    expect(await sqlOf((db) => forgetWaitingPayloads(db, AT))).toMatchSnapshot();
  });

  it('findLinks', async () => {
    expect(await sqlOf((db) => findLinks(db, 'prg_1', 'payment', ['ch_1', 'pi_1']))).toMatchSnapshot();
  });

  it('insertLinks: each id once, the first target kept', async () => {
    expect(await sqlOf((db) => insertLinks(db, 'prg_1', 'payment', ['in_1', 'pi_1', 'in_1'], 'txn_1'))).toMatchSnapshot();
  });

  it('upsertPromotionCodeLink', async () => {
    expect(await sqlOf((db) => upsertPromotionCodeLink(db, 'prg_1', 'promo_1', 'ALICE20'))).toMatchSnapshot();
  });
});
