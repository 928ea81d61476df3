import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../bench/processes.js';

/**
 * Another release's code beside this one, for the rolling upgrade test
 * (ingest/docs/upgrades.md#how-it-is-tested): the commit's tree, extracted with `git archive`,
 * running on this tree's `node_modules`.
 */

const run = promisify(execFile);

export interface ReleaseTree {
  /** Where the release's tree is (its `ingest/`, `script/`, `package.json`). */
  root: string;
  /** The names of the migrations the release knows, in order. */
  migrations: string[];
  /** Whether its migration runner accepts a database a newer release migrated (`newerMigrationsApplied`). */
  acceptsNewerSchema: boolean;
  remove(): Promise<void>;
}

/**
 * Extracts `commit` into a temporary directory. A reason instead when the clone lacks the
 * commit (a shallow clone): the caller skips with it.
 */
export async function extractRelease(commit: string): Promise<ReleaseTree | { missing: string }> {
  const known = await run('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT }).then(
    () => true,
    () => false,
  );
  if (!known) return { missing: `commit ${commit.slice(0, 12)} is not in this clone (shallow?): fetch the full history to run it` };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `svc-release-${commit.slice(0, 8)}-`));
  const archive = path.join(root, 'release.tar');
  await run('git', ['archive', '--format=tar', `--output=${archive}`, commit, 'ingest', 'script', 'package.json', 'tsconfig.json'], {
    cwd: ROOT,
  });
  await run('tar', ['-xf', archive, '-C', root]);
  fs.rmSync(archive);
  assertDependenciesInstalled(root);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const migrationsDir = path.join(root, 'ingest/src/db/migrations');
  const database = fs.readFileSync(path.join(root, 'ingest/src/db/database.ts'), 'utf8');
  return {
    root,
    migrations: fs
      .readdirSync(migrationsDir)
      .filter((f) => /^\d{4}_.+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort(),
    acceptsNewerSchema: database.includes('newerMigrationsApplied'),
    remove: async () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The release runs on this tree's `node_modules`: each of its dependencies must be installed
 * here at a version its own range asks for (an older release's are a subset, so far). Ranges
 * are compared as written: a changed range stops the test, which then needs that release's own install.
 */
function assertDependenciesInstalled(root: string): void {
  const theirs = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const ours = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const differing = Object.entries(theirs.dependencies).filter(([name, range]) => ours.dependencies[name] !== range);
  if (differing.length > 0)
    throw new Error(
      `the release's dependencies differ from this tree's: ${differing.map(([n, r]) => `${n}@${r} (here ${ours.dependencies[n] ?? 'absent'})`).join(', ')}`,
    );
}
