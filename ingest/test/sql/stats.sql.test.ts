import { describe, expect, it } from 'vitest';
import { selectDailyFigures, selectTopPartners } from '../../src/resources/stats/stats.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

describe('stats repository SQL', () => {
  it("selectDailyFigures: a program's days, its shards summed; one partner's", async () => {
    expect(await sqlOf((db) => selectDailyFigures(db, 'prg_1', '2026-01-01', '2026-01-31'))).toMatchSnapshot();
    expect(await sqlOf((db) => selectDailyFigures(db, 'prg_1', '2026-01-01', '2026-01-31', 'part_1'))).toMatchSnapshot();
  });

  it('selectTopPartners: by revenue in one currency, counts included, with what names each partner', async () => {
    expect(await sqlOf((db) => selectTopPartners(db, 'prg_1', '2026-01-01', '2026-01-31', 'USD', 5))).toMatchSnapshot();
  });
});
