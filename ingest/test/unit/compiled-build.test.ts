import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiled } from '../../build.mjs';

/** Which entry the `svc` command and the tests run (ingest/README.md#running-compiled-javascript). */
describe('compiled(name)', () => {
  let src: string;
  let dist: string;
  beforeEach(async () => {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-build-'));
    src = path.join(work, 'src');
    dist = path.join(work, 'dist');
    await fs.mkdir(path.join(src, 'db'), { recursive: true });
    await fs.writeFile(path.join(src, 'db', 'database.ts'), '');
  });
  afterEach(async () => {
    await fs.rm(path.dirname(src), { recursive: true, force: true });
  });
  const at = (file: string, seconds: number) => fs.utimes(file, seconds, seconds);

  it('is null without a build', () => {
    expect(compiled('cli', { src, dist })).toBeNull();
  });

  it('is the compiled entry while the build is as new as every source file, down the tree, and null once one is newer', async () => {
    await fs.mkdir(dist);
    await fs.writeFile(path.join(dist, '.built'), '');
    await at(path.join(src, 'db', 'database.ts'), 1_000);
    await at(path.join(dist, '.built'), 1_000);
    expect(compiled('cli', { src, dist })).toBe(path.join(dist, 'cli.mjs'));
    expect(compiled('main', { src, dist })).toBe(path.join(dist, 'main.mjs'));
    await at(path.join(src, 'db', 'database.ts'), 1_001);
    expect(compiled('cli', { src, dist })).toBeNull();
  });
});
