import { describe, expect, it } from 'vitest';
import { clearLogo, findBrand, findEmailBrand, findLogo, upsertBrand } from '../../src/resources/branding/branding.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const LOGO = { bytes: Buffer.from([0x89, 0x50, 0x4e]), type: 'image/png', sha256: 'ab'.repeat(32), width: 120, height: 40 };

describe('program branding SQL (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color)', () => {
  it('reads: the brand without the bytes, the brand of an e-mail with its program, the logo as served', async () => {
    expect(await sqlOf((db) => findBrand(db, 'prg_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => findEmailBrand(db, 'prg_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => findLogo(db, 'prg_1'))).toMatchSnapshot();
  });

  it('writes: the color with or without a new logo in one statement, the logo taken away', async () => {
    expect(await sqlOf((db) => upsertBrand(db, 'prg_1', '#e11d48', LOGO, NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => upsertBrand(db, 'prg_1', null, undefined, NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => clearLogo(db, 'prg_1', NOW))).toMatchSnapshot();
  });
});
