/**
 * The size budget of the built script: script/dist/svc.js, gzip level 9, at most 1,800 bytes,
 * everything included (no dependency is bundled: cookies are plain document.cookie writes).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_BUDGET_BYTES } from '../src/budget';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/svc.js');
const BUDGET = GZIP_BUDGET_BYTES;

describe('script/dist/svc.js size', () => {
  it(`gzip -9 is at most ${BUDGET} bytes`, () => {
    if (!existsSync(DIST)) {
      throw new Error(`${DIST} is missing: build it with \`npm run build\` before running the script tests`);
    }
    const code = readFileSync(DIST);
    const gzip = gzipSync(code, { level: 9 }).length;
    const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    const headroom = BUDGET - gzip;
    console.log(
      `svc.js  raw ${code.length} B  gzip ${gzip} B  brotli ${brotli} B  (budget: gzip ≤ ${BUDGET} B, ${headroom >= 0 ? `${headroom} B headroom` : `${-headroom} B over`})`,
    );
    expect(code.length, 'svc.js is empty').toBeGreaterThan(0);
    expect(gzip, `svc.js is ${gzip} B gzipped, over the ${BUDGET} B budget by ${gzip - BUDGET} B`).toBeLessThanOrEqual(BUDGET);
  });

  it('is one IIFE without a source map reference or leftover dev code', () => {
    if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\``);
    const code = readFileSync(DIST, 'utf8');
    expect(code).not.toMatch(/sourceMappingURL/);
    expect(code).not.toMatch(/\bimport\s*[{(*]|\bexport\s*[{*]|\brequire\(/);
    expect(code).not.toMatch(/console\.|debugger/);
  });
});
