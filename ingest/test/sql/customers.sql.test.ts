import { describe, expect, it } from 'vitest';
import type { CustomerRow } from '../../src/db/schema.js';
import {
  findCustomer,
  findCustomerOfClick,
  findExistingCustomer,
  hasOtherCustomers,
  insertCustomer,
  selectCustomerList,
  selectCustomers,
  selectCustomersNamed,
  softDeleteCustomer,
  sumCustomerRevenues,
  sumCustomerStats,
  updateCustomerRow,
} from '../../src/resources/customers/customers.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const at = new Date('2026-01-01T00:00:00Z');

const customer: Omit<CustomerRow, 'deleted_at'> = {
  id: 'cus_1',
  organization_id: 'org_1',
  program_id: 'prg_1',
  partner_id: 'prt_1',
  identifier: 'buyer@shop.io',
  email: 'buyer@shop.io',
  name: null,
  customer_id: 'user_42',
  subscription_id: null,
  click_id: 'clk_1',
  promotion_code_id: null,
  status: 'lead',
  plan: null,
  lead_at: at,
  active_at: null,
  created_at: at,
  updated_at: at,
};

describe('customers repository SQL', () => {
  it('findCustomerOfClick', async () => {
    expect(await sqlOf((db) => findCustomerOfClick(db, 'clk_1'))).toMatchSnapshot();
  });

  it('selectCustomers', async () => {
    expect(await sqlOf((db) => selectCustomers(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('selectCustomerList, program only', async () => {
    expect(await sqlOf((db) => selectCustomerList(db, 'org_1', { programId: 'prg_1' }).execute())).toMatchSnapshot();
  });

  it('selectCustomerList, every filter (a search with % and _ matched literally)', async () => {
    const filters = { programId: 'prg_1', partnerId: 'prt_1', status: 'active', search: '50%_off' };
    expect(await sqlOf((db) => selectCustomerList(db, 'org_1', filters).execute())).toMatchSnapshot();
  });

  it("selectCustomersNamed: the e-mail or the name (the dashboard's customer picker), % and _ matched literally", async () => {
    expect(await sqlOf((db) => selectCustomersNamed(db, 'org_1', 'prg_1', 'zoë_50%', 9).execute())).toMatchSnapshot();
  });

  it('findCustomer', async () => {
    expect(await sqlOf((db) => findCustomer(db, 'org_1', 'cus_1'))).toMatchSnapshot();
  });

  it('findExistingCustomer, by identifier and integrator id', async () => {
    expect(
      await sqlOf((db) => findExistingCustomer(db, 'prg_1', { identifier: 'Buyer@Shop.io', customerId: 'user_42' })),
    ).toMatchSnapshot();
  });

  it('findExistingCustomer, by integrator id only', async () => {
    expect(await sqlOf((db) => findExistingCustomer(db, 'prg_1', { customerId: 'user_42' }))).toMatchSnapshot();
  });

  it('insertCustomer', async () => {
    expect(await sqlOf((db) => insertCustomer(db, customer))).toMatchSnapshot();
  });

  it('updateCustomerRow', async () => {
    expect(
      await sqlOf((db) => updateCustomerRow(db, 'cus_1', { name: 'Buyer', status: 'active', active_at: at, updated_at: at })),
    ).toMatchSnapshot();
  });

  it('softDeleteCustomer', async () => {
    expect(await sqlOf((db) => softDeleteCustomer(db, 'cus_1', at))).toMatchSnapshot();
  });

  it('sumCustomerStats', async () => {
    expect(await sqlOf((db) => sumCustomerStats(db, 'cus_1'))).toMatchSnapshot();
  });

  it('sumCustomerRevenues, a page of customers in one statement', async () => {
    expect(await sqlOf((db) => sumCustomerRevenues(db, 'org_1', ['cus_1', 'cus_2']))).toMatchSnapshot();
  });

  it('hasOtherCustomers', async () => {
    expect(await sqlOf((db) => hasOtherCustomers(db, 'ptn_1', 'cus_1'))).toMatchSnapshot();
  });
});
