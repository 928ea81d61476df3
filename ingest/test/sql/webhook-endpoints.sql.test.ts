import { describe, expect, it } from 'vitest';
import {
  claimDueDeliveries,
  disableEndpoint,
  fanOutEvents,
  findEndpoint,
  findEndpointById,
  insertDeliveriesOfEvent,
  insertDelivery,
  insertEndpoint,
  purgeDeliveriesBefore,
  recordAttempts,
  releaseClaims,
  renewClaims,
  selectDeliveryList,
  selectEndpointList,
  softDeleteEndpoint,
  updateEndpointHealth,
  updateEndpointRow,
} from '../../src/resources/webhook-endpoints/webhook-endpoints.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');
const EVENT = { id: 'evt_1', organization_id: 'org_1', program_id: 'prg_1', type: 'commission.updated' };

describe('webhook endpoints repository SQL', () => {
  it('selectEndpointList: of one program', async () => {
    expect(await sqlOf((db) => selectEndpointList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('findEndpoint: locked', async () => {
    expect(await sqlOf((db) => findEndpoint(db, 'org_1', 'we_1', true))).toMatchSnapshot();
  });

  it('insertEndpoint', async () => {
    const endpoint = {
      id: 'we_1',
      organization_id: 'org_1',
      program_id: null,
      url: 'https://hooks.example.com/svc',
      description: null,
      event_types: ['*'],
      enabled: true,
      secret: 'whsec_test',
      created_at: AT,
      updated_at: AT,
    };
    expect(await sqlOf((db) => insertEndpoint(db, endpoint))).toMatchSnapshot();
  });

  it('updateEndpointRow', async () => {
    expect(await sqlOf((db) => updateEndpointRow(db, 'we_1', { enabled: false, updated_at: AT }))).toMatchSnapshot();
  });

  it('softDeleteEndpoint', async () => {
    expect(await sqlOf((db) => softDeleteEndpoint(db, 'we_1', AT))).toMatchSnapshot();
  });

  it('findEndpointById', async () => {
    expect(await sqlOf((db) => findEndpointById(db, 'we_1'))).toMatchSnapshot();
  });

  it('fanOutEvents: one statement', async () => {
    expect(await sqlOf((db) => fanOutEvents(db, { batch: 500, now: AT }))).toMatchSnapshot();
  });

  it('insertDeliveriesOfEvent: to every endpoint that wants it', async () => {
    expect(await sqlOf((db) => insertDeliveriesOfEvent(db, EVENT, { now: AT }))).toMatchSnapshot();
  });

  it('insertDeliveriesOfEvent: to one endpoint', async () => {
    expect(await sqlOf((db) => insertDeliveriesOfEvent(db, EVENT, { now: AT, endpointId: 'we_1' }))).toMatchSnapshot();
  });

  it('insertDelivery', async () => {
    const delivery = {
      id: 'wd_1',
      organization_id: 'org_1',
      endpoint_id: 'we_1',
      event_id: 'evt_1',
      event_type: 'test',
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: AT,
      attempts: '[]',
      created_at: AT,
      updated_at: AT,
    };
    expect(await sqlOf((db) => insertDelivery(db, delivery))).toMatchSnapshot();
  });

  it('claimDueDeliveries', async () => {
    expect(
      await sqlOf((db) => claimDueDeliveries(db, { now: AT, endpoints: 16, perEndpoint: 20, leaseUntil: AT, busy: ['we_2'] })),
    ).toMatchSnapshot();
  });

  it('recordAttempts: one statement for the attempts of a round', async () => {
    const entry = {
      attempt: 2,
      status: 'failed' as const,
      response_status: 500,
      response_body: 'oops',
      duration_ms: 12,
      error: 'HTTP 500',
      created_at: AT.toISOString(),
    };
    const outcomes = [
      { deliveryId: 'wd_1', entry, status: 'pending', nextAttemptAt: AT },
      {
        deliveryId: 'wd_2',
        entry: { ...entry, status: 'succeeded' as const, response_status: 204, error: null },
        status: 'succeeded',
        nextAttemptAt: null,
      },
    ];
    expect(await sqlOf((db) => recordAttempts(db, outcomes, AT))).toMatchSnapshot();
  });

  it('renewClaims: each only under the lease this process holds', async () => {
    const claims = [{ id: 'wd_1', attempt: 3, heldUntil: AT }];
    expect(await sqlOf((db) => renewClaims(db, claims, new Date(AT.getTime() + 20_000), AT))).toMatchSnapshot();
  });

  it('releaseClaims: unless claimed again since', async () => {
    const claims = [{ id: 'wd_1', endpoint_id: 'we_1', event_id: 'evt_1', attempt_count: 3, seq: 7 }];
    expect(await sqlOf((db) => releaseClaims(db, claims, AT))).toMatchSnapshot();
  });

  it('updateEndpointHealth: failing, and after a success', async () => {
    expect(await sqlOf((db) => updateEndpointHealth(db, 'we_1', { since: AT, hadSuccess: false }))).toMatchSnapshot();
    expect(await sqlOf((db) => updateEndpointHealth(db, 'we_1', { since: null, hadSuccess: true }))).toMatchSnapshot();
  });

  it('disableEndpoint', async () => {
    expect(await sqlOf((db) => disableEndpoint(db, 'we_1', 'failing', AT))).toMatchSnapshot();
  });

  it('selectDeliveryList: filtered by status and event', async () => {
    expect(
      await sqlOf((db) => selectDeliveryList(db, 'org_1', { endpointId: 'we_1', status: 'failed', eventId: 'evt_1' }).execute()),
    ).toMatchSnapshot();
  });

  it('purgeDeliveriesBefore', async () => {
    expect(await sqlOf((db) => purgeDeliveriesBefore(db, AT))).toMatchSnapshot();
  });
});
