import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Citations that cannot rot. Code and config cite the docs by a path from the repository's top
 * with an optional heading anchor, as GitHub makes it (`ingest/docs/payouts.md#generating`,
 * `README.md#configuration`); Markdown files link with ordinary relative links. This fails on a
 * cited file or heading that does not exist, and on a section cited by its name alone (the
 * README followed by a comma and a quoted or capitalised heading), which nothing can check.
 * How to cite: ingest/README.md#how-the-code-is-written.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Files worth reading for citations: text the project writes (no lock file, no pictures). */
const TEXT = /\.(ts|tsx|mts|mjs|cjs|js|jsonc|css|md|sh|yml|yaml|snap)$|(^|\/)\.ci\/run$/;
const SKIP = /(^|\/)(node_modules|dist|\.data)\//;

/** Tracked and new (not ignored) files; a walk of the tree where git is not at hand. */
function projectFiles(): string[] {
  let listed: string[];
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
  } catch {
    listed = (fs.readdirSync(ROOT, { recursive: true }) as string[]).map((f) => f.split(path.sep).join('/'));
  }
  return listed.filter(
    (f) => TEXT.test(f) && !SKIP.test(f) && fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile(),
  );
}

/** GitHub's anchor of a heading: its text in lower case, punctuation but `-` and `_` dropped, each space a `-`. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of a Markdown file outside fenced code blocks, with their numbers. */
function proseLines(text: string): [number, string][] {
  const out: [number, string][] = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, i) => {
    const opens = /^\s*(```+|~~~+)/.exec(line);
    if (opens) {
      if (fence === null) fence = opens[1][0];
      else if (opens[1][0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push([i + 1, line]);
  });
  return out;
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors of a Markdown file's headings; a repeated heading gets `-1`, `-2` … as on GitHub. */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = new Set();
    const seen = new Map<string, number>();
    for (const [, line] of proseLines(fs.readFileSync(file, 'utf8'))) {
      const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!h) continue;
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** What is wrong with a citation of `target` (a path, `#anchor` optional) resolved from `fromDir`; null when it holds. */
function brokenTarget(fromDir: string, target: string): string | null {
  const hash = target.indexOf('#');
  const filePart = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = path.resolve(fromDir, decodeURIComponent(filePart));
  if (!file.startsWith(ROOT) || !fs.existsSync(file)) return 'no such file';
  if (anchor !== null && filePart.endsWith('.md') && !anchorsOf(file).has(anchor)) return `no heading #${anchor}`;
  return null;
}

/** A path to a Markdown file from the repository's top, with its anchor: not part of a URL or a longer path. */
const CODE_CITATION = /(?<![\w./:@-])((?:[\w.-]+\/)*[\w.-]+\.md)(#[\w-]+)?(?!\w)/g;
/** A relative link of a Markdown file: `[text](target)`, `![alt](target)`. */
const MD_LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
/** Sections named in words, which nothing can check: the README, a comma and a quoted or capitalised heading, and the like. */
const NAMED_SECTION = [
  /\bREADME(?:\.md)?,? \(?["“'][A-Z]/,
  /\bREADME(?:\.md)?, [A-Z]/,
  /\bREADME's [A-Z]/,
  /\(README\)/,
  /\.md,? \(?["“][A-Z]/,
];

const files = projectFiles();
const read = new Map(files.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]));

describe('citations of the docs', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('The script — `svc.js`')).toBe('the-script--svcjs');
    expect(slug('Where a referral could get lost, and what the script does now')).toBe(
      'where-a-referral-could-get-lost-and-what-the-script-does-now',
    );
    expect(slug('Balances — `GET /v1/programs/:id/balances`')).toBe('balances--get-v1programsidbalances');
    expect(slug('A [link](README.md) and __proto__')).toBe('a-link-and-__proto__');
  });

  it('every file and heading that code and config cite exists', () => {
    const problems: string[] = [];
    let found = 0;
    for (const [file, text] of read) {
      if (file.endsWith('.md')) continue;
      text.split('\n').forEach((line, i) => {
        for (const m of line.matchAll(CODE_CITATION)) {
          found++;
          const why = brokenTarget(ROOT, m[1] + (m[2] ?? ''));
          if (why) problems.push(`${file}:${i + 1}: ${m[0]}: ${why}`);
        }
      });
    }
    expect(problems).toEqual([]);
    // A pattern that silently stopped matching would pass everything.
    expect(found).toBeGreaterThan(100);
  });

  it('every relative link of every Markdown file resolves, anchors included', () => {
    const problems: string[] = [];
    let found = 0;
    for (const [file, text] of read) {
      if (!file.endsWith('.md')) continue;
      const dir = path.dirname(path.join(ROOT, file));
      for (const [n, line] of proseLines(text)) {
        for (const m of line.replace(/`[^`]*`/g, '').matchAll(MD_LINK)) {
          const target = m[1];
          if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto: …
          found++;
          const why = target.startsWith('#')
            ? anchorsOf(path.join(ROOT, file)).has(target.slice(1))
              ? null
              : `no heading ${target}`
            : brokenTarget(dir, target);
          if (why) problems.push(`${file}:${n}: ${target}: ${why}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(found).toBeGreaterThan(50);
  });

  it('no section is cited by its name alone', () => {
    const problems: string[] = [];
    for (const [file, text] of read) {
      // This file spells out the forms it refuses.
      if (file === 'ingest/test/unit/citations.test.ts') continue;
      text.split('\n').forEach((line, i) => {
        if (NAMED_SECTION.some((re) => re.test(line))) problems.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(problems).toEqual([]);
  });
});
