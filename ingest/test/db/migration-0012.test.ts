import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPglite, type Db, pgliteDb } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';

/**
 * Migration 0012 makes program subdomains unique (the portal's address,
 * ingest/docs/partner-portal.md): programs that shared one keep the oldest on it and give the
 * others a suffix from their id.
 */
describe('migration 0012: unique subdomains', () => {
  let db: Db;
  const migrator = () => new Migrator({ db, provider: { getMigrations: async () => migrations } });

  beforeAll(async () => {
    db = pgliteDb(createPglite({}));
    const upTo = await migrator().migrateTo('0011_dashboard');
    expect(upTo.error).toBeUndefined();
  });
  afterAll(() => db.destroy());

  it('keeps the oldest program on a shared subdomain and moves the others to distinct labels', async () => {
    await sql`insert into organizations (id, name, created_at, updated_at) values ('org_1', 'One', now(), now())`.execute(db);
    const insert = (id: string, subdomain: string, at: string) =>
      sql`insert into programs (id, organization_id, name, product_name, subdomain, type, status, currency_code, cookie_duration,
                                url_params, payout_term, payout_methods, attribution_model, public_key, created_at, updated_at)
          values (${id}, 'org_1', 'P', 'P', ${subdomain}, 'public', 'active', 'USD', 30, '["ref"]', '30', '["paypal"]',
                  'last_click', ${`pk_${id}`}, ${at}::timestamptz, ${at}::timestamptz)`.execute(db);
    await insert('prg_b', 'acme', '2026-01-02T00:00:00Z');
    await insert('prg_a', 'acme', '2026-01-01T00:00:00Z');
    await insert('prg_c', 'acme', '2026-01-03T00:00:00Z');
    await insert('prg_d', 'x'.repeat(63), '2026-01-01T00:00:00Z');
    await insert('prg_e', 'x'.repeat(63), '2026-01-02T00:00:00Z');
    await insert('prg_f', 'solo', '2026-01-01T00:00:00Z');

    const done = await migrator().migrateToLatest();
    expect(done.error).toBeUndefined();

    const rows = await sql<{ id: string; subdomain: string }>`select id, subdomain from programs order by id`.execute(db);
    const by = Object.fromEntries(rows.rows.map((r) => [r.id, r.subdomain]));
    expect(by.prg_a).toBe('acme');
    expect(by.prg_f).toBe('solo');
    expect(by.prg_d).toBe('x'.repeat(63));
    for (const id of ['prg_b', 'prg_c']) expect(by[id]).toMatch(/^acme-[0-9a-f]{6}$/);
    expect(by.prg_e).toMatch(/^x{56}-[0-9a-f]{6}$/);
    expect(new Set(Object.values(by)).size).toBe(6);
    for (const subdomain of Object.values(by)) expect(subdomain).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);

    await expect(sql`update programs set subdomain = 'acme' where id = 'prg_f'`.execute(db)).rejects.toThrow(/programs_subdomain/);
  });
});
