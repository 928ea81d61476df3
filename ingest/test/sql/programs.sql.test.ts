import { describe, expect, it } from 'vitest';
import { findProgram, selectPrograms } from '../../src/resources/programs/programs.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

describe('programs repository SQL', () => {
  it('findProgram', async () => {
    expect(await sqlOf((db) => findProgram(db, 'org_1', 'prg_1'))).toMatchSnapshot();
  });

  it('selectPrograms', async () => {
    expect(await sqlOf((db) => selectPrograms(db, 'org_1').execute())).toMatchSnapshot();
  });
});
