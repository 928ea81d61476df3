import { describe, expect, it, vi } from 'vitest';
import { ID_PREFIXES, type IdKind } from '../../src/ids.js';
import {
  findProgram,
  findProgramByPublicKey,
  insertProgram,
  lockProgram,
  selectPrograms,
  updateProgramRow,
} from '../../src/resources/programs/programs.repository.js';
import { createProgram, listPrograms, updateProgram } from '../../src/resources/programs/programs.service.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { sqlOf } from '../support/sql-recorder.js';

// Fixed ids and keys, so that the statements of a whole service call can be snapshotted.
vi.mock('../../src/ids.js', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../src/ids.js')>();
  return {
    ...ids,
    newId: (kind: IdKind) => `${ID_PREFIXES[kind]}_new`,
    newPublicKey: () => 'pk_new',
    randomBase62: (length: number) => 'x'.repeat(length),
  };
});

const NOW = new Date('2026-01-01T00:00:00Z');

/** The program lookups answer with a program row; everything else with an empty row. */
const programRows = (query: string) => (query.startsWith('select "p".*') ? [{ id: 'prg_1', public_key: 'pk_1' }] : [{}]);

/** A list: the cursor is found, the count is 0, the page is empty. */
const listRows = (query: string) => {
  if (query.includes('count(*)')) return [{ n: 0 }];
  if (query.includes(' as "c"')) return [{ c: NOW, i: 'prg_0' }];
  return [];
};

describe('programs repository SQL', () => {
  it('findProgram', async () => {
    expect(await sqlOf((db) => findProgram(db, 'org_1', 'prg_1'))).toMatchSnapshot();
  });

  it('selectPrograms', async () => {
    expect(await sqlOf((db) => selectPrograms(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('findProgramByPublicKey', async () => {
    expect(await sqlOf((db) => findProgramByPublicKey(db, 'pk_1'))).toMatchSnapshot();
  });

  it('insertProgram', async () => {
    const program = {
      id: 'prg_1',
      organization_id: 'org_1',
      name: 'Acme',
      product_name: 'Acme',
      subdomain: 'acme',
      type: 'public',
      status: 'active',
      currency_code: 'USD',
      cookie_duration: 30,
      url_params: JSON.stringify(['ref', 'via']),
      payout_term: '30',
      payout_methods: JSON.stringify(['paypal']),
      attribution_model: 'last_click',
      public_key: 'pk_1',
      created_at: NOW,
      updated_at: NOW,
    };
    expect(await sqlOf((db) => insertProgram(db, program))).toMatchSnapshot();
  });

  it('updateProgramRow', async () => {
    const changes = { name: 'Acme 2', url_params: JSON.stringify(['ref']), updated_at: NOW };
    expect(await sqlOf((db) => updateProgramRow(db, 'org_1', 'prg_1', changes))).toMatchSnapshot();
  });

  it('lockProgram', async () => {
    expect(await sqlOf((db) => lockProgram(db, 'prg_1'))).toMatchSnapshot();
  });
});

describe('programs service SQL', () => {
  it('listPrograms: a page after a cursor', async () => {
    const query = { limit: 5, starting_after: 'prg_0' };
    expect(await sqlOf((db) => listPrograms(db, 'org_1', query), listRows)).toMatchSnapshot();
  });

  it('createProgram: program, default group and default flow in one transaction', async () => {
    expect(await sqlOf((db) => createProgram(db, 'org_1', { name: 'Acme' }), programRows)).toMatchSnapshot();
  });

  it('updateProgram', async () => {
    const store = createMemoryStore();
    const input = { name: 'Acme 2', payout_methods: ['wise' as const] };
    expect(await sqlOf((db) => updateProgram(db, store, 'org_1', 'prg_1', input), programRows)).toMatchSnapshot();
    await store.close();
  });
});
