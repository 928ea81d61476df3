import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { ProgramRow } from '../../src/db/schema.js';
import { createClickWriter } from '../../src/resources/clicks/click-writer.js';
import type { TrackClickInput } from '../../src/resources/tracking/tracking.schema.js';
import { trackClick } from '../../src/resources/tracking/tracking.service.js';
import type { SharedStore } from '../../src/store/index.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { sqlOf } from '../support/sql-recorder.js';

/**
 * The statements of the script's click, the hot path
 * (ingest/bench/README.md#what-makes-the-hot-paths-fast): each scenario's whole sequence, so that a
 * change in their number shows in review as well as their text.
 */

const AT = new Date('2026-01-02T03:04:05.000Z');
const program: ProgramRow = {
  id: 'prg_1',
  organization_id: 'org_1',
  name: 'Acme Partners',
  product_name: 'Acme',
  subdomain: 'acme',
  type: 'public',
  status: 'active',
  currency_code: 'USD',
  cookie_duration: 30,
  url_params: ['ref', 'via'],
  payout_term: '30',
  payout_methods: ['paypal'],
  attribution_model: 'last_click',
  public_key: 'pk_1',
  minimum_payout: 0,
  auto_approve_partners: false,
  partner_terms: null,
  website_url: null,
  risk_rules: {},
  risk_salt: 'salt',
  created_at: AT,
  updated_at: AT,
};
const visitor = {
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
};
const input = (extra: Partial<TrackClickInput> = {}): TrackClickInput => ({
  key: 'pk_1',
  param: 'ref',
  value: 'alice',
  page: 'https://acme.com/?ref=alice',
  ...extra,
});
const LINK = { id: 'lnk_1', partner_id: 'ptn_1', program_id: 'prg_1' };
const EARLIER = { id: 'clk_earlier', partner_id: 'ptn_2', created_at: AT };

/** Answers: the link for the link lookup, `clicks` for any read of clicks, no customer. */
const answers =
  (clicks: Record<string, unknown>[] = []) =>
  (text: string) => {
    if (text.includes('from "links"')) return [LINK];
    if (text.startsWith('insert')) return [];
    if (text.includes('from "customers"')) return [];
    return clicks;
  };

/** Click ids made by newId (the fixed ids of these tests are shorter). */
const MADE_CLICK_ID = /clk_[0-9A-Za-z]{20,}/g;

/** Records trackClick's statements; a click id it makes is written as <click id>. */
async function track(
  extra: Partial<TrackClickInput>,
  rows: (text: string) => Record<string, unknown>[],
  options: { store?: SharedStore; program?: ProgramRow; userAgent?: string } = {},
): Promise<string> {
  const store = options.store ?? createMemoryStore();
  const text = await sqlOf(
    (db: Db) =>
      trackClick(
        db,
        { store, write: createClickWriter(db), programs: async () => options.program ?? program, botFilter: true },
        input(extra),
        { ...visitor, userAgent: options.userAgent ?? visitor.userAgent },
      ),
    rows,
  );
  return text.replace(MADE_CLICK_ID, '<click id>');
}

describe('the script click SQL (trackClick)', () => {
  it('a first visit: the link, then the click', async () => {
    expect(await track({}, answers())).toMatchSnapshot();
  });

  it('a returning visitor naming their click of the hour: the click and its customer, nothing written', async () => {
    expect(await track({ click_id: 'clk_earlier' }, answers([EARLIER]))).toMatchSnapshot();
  });

  it('a repeat remembered by the shared store: the link is cached, the remembered click is checked, nothing written', async () => {
    const store = createMemoryStore();
    await track({}, answers(), { store });
    // The second visit finds the click remembered by the first; SQL shows it committed and unclaimed.
    const remembered = (text: string) => (text.includes('from "clicks"') ? [{ ...EARLIER, claimed: false }] : answers()(text));
    expect(await track({}, remembered, { store })).toMatchSnapshot();
  });

  it('a first_click program keeps the earlier click of another link: a new click, then the earlier one and its customer', async () => {
    const rows = (text: string) => (text.includes('"program_id" =') && text.includes('from "clicks"') ? [EARLIER] : answers()(text));
    expect(await track({ click_id: 'clk_earlier' }, rows, { program: { ...program, attribution_model: 'first_click' } })).toMatchSnapshot();
  });

  it('a bot: no SQL at all', async () => {
    expect(await track({}, answers(), { userAgent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' })).toBe('');
  });
});
