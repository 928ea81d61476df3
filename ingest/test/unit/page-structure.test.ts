import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The shape of the page layer (ingest/README.md#how-to-add-a-dashboard-or-portal-page): pages are
// leaves that the routers register, the shared pieces live in the page kit (src/pages), the two
// halves do not import each other, and nothing under src imports in a circle.

const SRC = path.resolve(import.meta.dirname, '../../src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module of src and the modules of src it imports (type-only imports included: they tie modules as much). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      const base = path.resolve(path.dirname(file), spec).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
      if (target) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

const rel = (f: string) => path.relative(SRC, f);
const isPage = (f: string) => /^(dashboard|portal)\/pages\//.test(rel(f));
const half = (f: string) => /^(dashboard|portal)\//.exec(rel(f))?.[1];

describe('the page layer', () => {
  const graph = importGraph();

  it('has no import circle anywhere in src', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const trail: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      trail.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') circles.push([...trail.slice(trail.indexOf(next)), next].map(rel).join(' → '));
        else if (!state.has(next)) visit(next);
      }
      trail.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('has no page importing another page, and neither half importing the other', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (isPage(file) && isPage(target)) wrong.push(`${rel(file)} imports the page ${rel(target)}`);
        if (half(file) && half(target) && half(file) !== half(target)) wrong.push(`${rel(file)} imports ${rel(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gets what pages show from services: no repository or loadByIds in the dashboard or the portal', () => {
    const wrong = [...graph]
      .filter(([file]) => half(file))
      .flatMap(([file, targets]) =>
        targets.filter((t) => /\.repository\.ts$|load-by-ids\.ts$/.test(t)).map((t) => `${rel(file)} imports ${rel(t)}`),
      );
    expect(wrong).toEqual([]);
  });
});
