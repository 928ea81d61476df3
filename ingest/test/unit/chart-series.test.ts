import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/money.js';
import { chartSeries } from '../../src/pages/chart.js';
import type { StatsObject } from '../../src/resources/stats/stats.schema.js';

/**
 * What the chart is given (ingest/docs/dashboard.md#the-overviews-chart): each day's five figures
 * in the program's currency, the legend's texts written by money.ts, and the period's totals.
 */
describe('chartSeries', () => {
  const stats: StatsObject = {
    program_id: 'prg_1',
    partner_id: null,
    start: '2026-03-01',
    end: '2026-03-03',
    totals: { clicks: 1234, leads: 5, customers: 2, revenue: { JPY: 15_000, USD: 999 }, commissions: { JPY: 2_950 } },
    days: [
      { date: '2026-03-01', clicks: 1000, leads: 3, customers: 1, revenue: { JPY: 10_000 }, commissions: { JPY: 2_000 } },
      { date: '2026-03-02', clicks: 0, leads: 0, customers: 0, revenue: {}, commissions: {} },
      { date: '2026-03-03', clicks: 234, leads: 2, customers: 1, revenue: { JPY: 5_000, USD: 999 }, commissions: { JPY: 950 } },
    ],
  };

  it("draws the five figures per day in the program's currency, with its totals for the legend", () => {
    expect(chartSeries(stats, 'JPY')).toEqual({
      dates: ['2026-03-01', '2026-03-02', '2026-03-03'],
      clicks: [1000, 0, 234],
      leads: [3, 0, 2],
      customers: [1, 0, 1],
      revenue: [10_000, 0, 5_000],
      commissions: [2_000, 0, 950],
      currency: 'JPY',
      digits: 0,
      money: { revenue: ['¥10,000', '¥0', '¥5,000'], commissions: ['¥2,000', '¥0', '¥950'] },
      totals: { clicks: '1,234', leads: '5', customers: '2', revenue: '¥15,000', commissions: '¥2,950' },
    });
  });

  it('leaves another currency out of the chart (the table has it), and shows none as zero', () => {
    const usd = chartSeries(stats, 'USD');
    expect(usd.revenue).toEqual([0, 0, 999]);
    expect(usd.commissions).toEqual([0, 0, 0]);
    expect(usd.totals).toMatchObject({ revenue: '$9.99', commissions: '$0.00' });
    expect(usd.digits).toBe(2);
    // Three decimals: drawn in dinars, written as money.ts writes them.
    const kwd = chartSeries(stats, 'KWD');
    expect(kwd.digits).toBe(3);
    expect(kwd.money.revenue).toEqual([0, 0, 0].map((fils) => formatMoney(fils, 'KWD')));
    expect(kwd.money.revenue[0]).toMatch(/0\.000/);
  });
});
