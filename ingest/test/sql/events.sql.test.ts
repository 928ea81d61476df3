import { describe, expect, it } from 'vitest';
import {
  findEvent,
  findEventsByIds,
  insertEvent,
  purgeEventsBefore,
  selectEventList,
} from '../../src/resources/events/events.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const AT = new Date('2026-01-02T03:04:05.000Z');

describe('events repository SQL', () => {
  it('selectEventList: filtered by program and type', async () => {
    expect(await sqlOf((db) => selectEventList(db, 'org_1', { programId: 'prg_1', type: 'partner.created' }).execute())).toMatchSnapshot();
  });

  it('findEvent', async () => {
    expect(await sqlOf((db) => findEvent(db, 'org_1', 'evt_1'))).toMatchSnapshot();
  });

  it('findEventsByIds', async () => {
    expect(await sqlOf((db) => findEventsByIds(db, ['evt_1', 'evt_2']))).toMatchSnapshot();
  });

  it('insertEvent', async () => {
    const event = {
      id: 'evt_1',
      organization_id: 'org_1',
      program_id: 'prg_1',
      type: 'test',
      object_id: 'we_1',
      snapshot: '{"endpoint_id":"we_1"}',
      created_at: AT,
      dispatched_at: AT,
    };
    expect(await sqlOf((db) => insertEvent(db, event))).toMatchSnapshot();
  });

  it('purgeEventsBefore', async () => {
    expect(await sqlOf((db) => purgeEventsBefore(db, AT))).toMatchSnapshot();
  });
});
