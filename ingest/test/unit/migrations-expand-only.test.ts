import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Migrations are expand-only for one release (ingest/docs/upgrades.md#the-rule-expand-only): the
 * previous release's processes keep serving on the schema a migration leaves. What old code may
 * break on (a column or table gone or renamed, a constraint it may violate, a type changed)
 * needs the marker `contract after release <release>:` in the migration, naming the release
 * whose code stopped using it; such an upgrade stops the old processes first. And an index on
 * an existing table is `create index if not exists`, so that a large table's can be built
 * beforehand without blocking writes (ingest/docs/upgrades.md#indexes-on-large-tables): no
 * marker lets that one through.
 */

const DIR = new URL('../../src/db/migrations/', import.meta.url);
const MARKER = /contract after release (\S+):/;

const BLOCKING_INDEX = 'an index without `if not exists` on the existing table';

/** Landed before the rule, and frozen: what each does that the rule now refuses or asks a marker for. */
const LANDED_BEFORE_THE_RULE: Record<string, string[]> = {
  '0004_transactions_commissions.ts': [`${BLOCKING_INDEX} flows`],
  '0005_lists_at_scale.ts': [`${BLOCKING_INDEX} customers`, `${BLOCKING_INDEX} customers`],
  '0010_payouts.ts': [`${BLOCKING_INDEX} commissions`, `${BLOCKING_INDEX} commissions`],
  '0012_partner_portal.ts': [
    'a unique index on the existing table programs',
    `${BLOCKING_INDEX} programs`,
    'a constraint added to the existing table commissions',
  ],
  '0015_partners_awaiting_review.ts': [`${BLOCKING_INDEX} partners`],
};

/** The body of `up`: `down` undoes the migration, and drops what `up` made. */
function upOf(source: string): string {
  const start = source.indexOf('export async function up(');
  const end = source.indexOf('export async function down(');
  if (start < 0) throw new Error('no `export async function up(`');
  return source.slice(start, end > start ? end : undefined);
}

const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

const TABLE = String.raw`(?:if\s+(?:not\s+)?exists\s+)?(?:only\s+)?"?(\w+)"?`;

/** What one statement of `up` does that a process of the previous release may break on. */
function contractions(statement: string, createdHere: Set<string>): string[] {
  const found: string[] = [];
  const altered =
    new RegExp(String.raw`alter\s+table\s+${TABLE}`, 'i').exec(statement)?.[1] ?? /\.alterTable\(\s*'(\w+)'/.exec(statement)?.[1];
  const indexed =
    new RegExp(String.raw`create\s+(?:unique\s+)?index\s+(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?\w*\s*on\s+${TABLE}`, 'i').exec(
      statement,
    )?.[1] ?? /\.createIndex\([^)]*\)[\s\S]*?\.on\(\s*'(\w+)'/.exec(statement)?.[1];
  const existing = (table: string | undefined): table is string => table !== undefined && !createdHere.has(table);
  if (/\bdrop\s+column\b|\.dropColumn\(/i.test(statement)) found.push('a column dropped');
  if (/\bdrop\s+table\b|\.dropTable\(/i.test(statement)) found.push('a table dropped');
  if (/rename/i.test(statement)) found.push('a rename');
  if (/\bset\s+not\s+null\b|\.setNotNull\(/i.test(statement)) found.push('a column set not null');
  if (/\balter\s+column\s+"?\w+"?\s+(?:set\s+data\s+)?type\b|\.setDataType\(/i.test(statement)) found.push('a column type changed');
  if (existing(altered)) {
    if (/\badd\s+constraint\b|\.add(?:Check|Unique|ForeignKey|PrimaryKey)Constraint\(/i.test(statement))
      found.push(`a constraint added to the existing table ${altered}`);
    const notNull = /\bnot\s+null\b|\.notNull\(\)/i.test(statement);
    const defaulted = /\bdefault\b|\.defaultTo\(/i.test(statement);
    if (/\badd\s+column\b|\.addColumn\(/i.test(statement) && notNull && !defaulted)
      found.push(`a not null column without a default on the existing table ${altered}`);
  }
  if (existing(indexed)) {
    if (/create\s+unique\s+index|\.unique\(\)/i.test(statement)) found.push(`a unique index on the existing table ${indexed}`);
    if (!/if\s+not\s+exists|\.ifNotExists\(\)/i.test(statement)) found.push(`${BLOCKING_INDEX} ${indexed}`);
  }
  return found;
}

/** Every contraction in a migration's `up`, statement by statement. */
function contractionsOf(source: string): string[] {
  const up = withoutComments(upOf(source));
  const createdHere = new Set(
    [...up.matchAll(new RegExp(String.raw`create\s+table\s+${TABLE}|\.createTable\(\s*'(\w+)'`, 'gi'))].map((m) => m[1] ?? m[2]),
  );
  return up
    .split(/\bawait\s/)
    .slice(1)
    .flatMap((statement) => contractions(statement, createdHere));
}

const files = fs
  .readdirSync(DIR)
  .filter((f) => /^\d{4}_.+\.ts$/.test(f))
  .sort();

describe('migrations are expand-only for one release', () => {
  it.each(files)('%s', (file) => {
    const source = fs.readFileSync(new URL(file, DIR), 'utf8');
    const found = contractionsOf(source);
    const landed = LANDED_BEFORE_THE_RULE[file];
    if (landed) return expect(found, 'a migration landed before the rule is frozen').toEqual(landed);
    const [blocking, contracting] = [found.filter((f) => f.startsWith(BLOCKING_INDEX)), found.filter((f) => !f.startsWith(BLOCKING_INDEX))];
    expect(blocking, `${file}: write \`create index if not exists\` (ingest/docs/upgrades.md#indexes-on-large-tables)`).toEqual([]);
    if (contracting.length > 0)
      expect(
        MARKER.test(source),
        `${file}: ${contracting.join('; ')}: add \`// contract after release <release>: …\` (ingest/docs/upgrades.md#the-rule-expand-only)`,
      ).toBe(true);
  });

  /** One statement of `up`, and what it contracts. */
  const KINDS: [string, string][] = [
    ['await sql`alter table partners drop column notes`.execute(db);', 'a column dropped'],
    ["await db.schema.alterTable('partners').dropColumn('notes').execute();", 'a column dropped'],
    ['await sql`drop table if exists links`.execute(db);', 'a table dropped'],
    ["await db.schema.alterTable('links').renameTo('old_links').execute();", 'a rename'],
    ['await sql`alter table links rename column value to slug`.execute(db);', 'a rename'],
    ["await db.schema.alterTable('links').alterColumn('value', (c) => c.setNotNull()).execute();", 'a column set not null'],
    ['await sql`alter table links alter column value set not null`.execute(db);', 'a column set not null'],
    ['await sql`alter table links alter column value type varchar(20)`.execute(db);', 'a column type changed'],
    [
      'await sql`alter table links add constraint short check (length(value) < 9)`.execute(db);',
      'a constraint added to the existing table links',
    ],
    [
      "await db.schema.alterTable('links').addColumn('kind', 'text', (c) => c.notNull()).execute();",
      'a not null column without a default on the existing table links',
    ],
    [
      'await sql`create unique index if not exists links_value on links (value)`.execute(db);',
      'a unique index on the existing table links',
    ],
    ["await db.schema.createIndex('links_value').on('links').column('value').execute();", `${BLOCKING_INDEX} links`],
  ];

  it.each(KINDS)('finds %s', (statement, kind) => {
    const source = `export async function up(db) {\n${statement}\n}\nexport async function down(db) { await db.schema.dropTable('t').execute(); }`;
    expect(contractionsOf(source)).toEqual([kind]);
  });

  it('lets expansions through: new tables with their constraints and indexes, defaulted or nullable columns, indexes if not exists', () => {
    const source = `export async function up(db) {
      // dropping nothing: a comment that names drop column and rename is not a statement
      await db.schema.createTable('badges').addColumn('id', 'text', (c) => c.primaryKey()).addCheckConstraint('x', sql\`id <> ''\`).execute();
      await sql\`create unique index badges_id on badges (id)\`.execute(db);
      await db.schema.alterTable('partners').addColumn('badge_id', 'text').execute();
      await db.schema.alterTable('partners').addColumn('level', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await sql\`create index if not exists partners_level on partners (level)\`.execute(db);
    }`;
    expect(contractionsOf(source)).toEqual([]);
    expect(MARKER.test('// contract after release 2026.12: drops partners.notes')).toBe(true);
  });
});
