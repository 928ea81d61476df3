import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/**
 * The SQL of programs' brands (table program_branding, migration 0016): the logo's bytes are read
 * only where they are served.
 */

/** What pages and e-mails need of a program's brand: everything but the logo's bytes. */
export function findBrand(db: Db, programId: string) {
  return db
    .selectFrom('program_branding')
    .select(['logo_type', 'logo_sha256', 'logo_width', 'logo_height', 'accent_color'])
    .where('program_id', '=', programId)
    .executeTakeFirst();
}

/** The brand of the program an e-mail is about, with the program's name and portal address. */
export function findEmailBrand(db: Db, programId: string) {
  return db
    .selectFrom('programs as p')
    .leftJoin('program_branding as b', 'b.program_id', 'p.id')
    .select(['p.name', 'p.subdomain', 'b.logo_sha256', 'b.logo_width', 'b.logo_height', 'b.accent_color'])
    .where('p.id', '=', programId)
    .executeTakeFirst();
}

/** The logo as served: bytes, type and hash; undefined when the program has none. */
export function findLogo(db: Db, programId: string) {
  return db
    .selectFrom('program_branding')
    .select(['logo', 'logo_type', 'logo_sha256'])
    .where('program_id', '=', programId)
    .where('logo', 'is not', null)
    .executeTakeFirst();
}

export interface StoredLogo {
  bytes: Uint8Array;
  type: string;
  sha256: string;
  width: number;
  height: number;
}

/**
 * Writes a program's brand in one statement: the accent color always (null: svc's own), the logo
 * when one is given (otherwise the stored one stays).
 */
export async function upsertBrand(db: Db, programId: string, accentColor: string | null, logo: StoredLogo | undefined, now: Date) {
  const logoColumns = logo
    ? {
        logo: logo.bytes,
        logo_type: logo.type,
        logo_sha256: logo.sha256,
        logo_size: logo.bytes.length,
        logo_width: logo.width,
        logo_height: logo.height,
      }
    : {};
  await db
    .insertInto('program_branding')
    .values({ program_id: programId, accent_color: accentColor, updated_at: now, ...logoColumns })
    .onConflict((oc) =>
      oc.column('program_id').doUpdateSet({
        accent_color: accentColor,
        updated_at: now,
        ...(logo
          ? {
              logo: sql`excluded.logo`,
              logo_type: sql`excluded.logo_type`,
              logo_sha256: sql`excluded.logo_sha256`,
              logo_size: sql`excluded.logo_size`,
              logo_width: sql`excluded.logo_width`,
              logo_height: sql`excluded.logo_height`,
            }
          : {}),
      }),
    )
    .execute();
}

/** Takes the program's logo away (its accent color stays). */
export async function clearLogo(db: Db, programId: string, now: Date): Promise<void> {
  await db
    .updateTable('program_branding')
    .set({ logo: null, logo_type: null, logo_sha256: null, logo_size: null, logo_width: null, logo_height: null, updated_at: now })
    .where('program_id', '=', programId)
    .execute();
}
