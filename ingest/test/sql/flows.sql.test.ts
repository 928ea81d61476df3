import { describe, expect, it } from 'vitest';
import {
  activeFlows,
  findFlow,
  insertFlow,
  selectFlowList,
  selectFlows,
  softDeleteFlow,
  updateFlowById,
} from '../../src/resources/flows/flows.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

describe('flows repository SQL', () => {
  it('selectFlows', async () => {
    expect(await sqlOf((db) => selectFlows(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('findFlow', async () => {
    expect(await sqlOf((db) => findFlow(db, 'org_1', 'flw_1'))).toMatchSnapshot();
  });

  it('selectFlowList: the program only', async () => {
    expect(await sqlOf((db) => selectFlowList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectFlowList: every filter', async () => {
    expect(
      await sqlOf((db) =>
        selectFlowList(db, 'org_1', { programId: 'prg_1', groupId: 'grp_1', trigger: 'signup', active: false }).execute(),
      ),
    ).toMatchSnapshot();
  });

  it('activeFlows: every trigger', async () => {
    expect(await sqlOf((db) => activeFlows(db, 'prg_1'))).toMatchSnapshot();
  });

  it('activeFlows: one trigger', async () => {
    expect(await sqlOf((db) => activeFlows(db, 'prg_1', 'payment'))).toMatchSnapshot();
  });

  it('insertFlow', async () => {
    const flow = {
      id: 'flw_1',
      organization_id: 'org_1',
      program_id: 'prg_1',
      group_id: null,
      name: 'Twenty percent',
      trigger: 'payment',
      conditions: '[]',
      reward: '{"type":"percentage","value":20}',
      approval: '{"type":"immediate"}',
      active: true,
      is_default: false,
      created_at: AT,
      updated_at: AT,
    };
    expect(await sqlOf((db) => insertFlow(db, flow))).toMatchSnapshot();
  });

  it('updateFlowById', async () => {
    expect(
      await sqlOf((db) => updateFlowById(db, 'flw_1', { name: 'Renamed', active: false, reward: '{"type":"fixed","value":500}' })),
    ).toMatchSnapshot();
  });

  it('softDeleteFlow', async () => {
    expect(await sqlOf((db) => softDeleteFlow(db, 'flw_1'))).toMatchSnapshot();
  });
});
