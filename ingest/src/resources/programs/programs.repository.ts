import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ProgramRow, ProgramsTable } from '../../db/schema.js';

export type ProgramWithDefaultGroup = ProgramRow & { default_group_id: string };

/** The organization's programs, each with the id of its live default group. */
export function selectPrograms(db: Db, organizationId: string) {
  return db
    .selectFrom('programs as p')
    .innerJoin('groups as g', (j) => j.onRef('g.program_id', '=', 'p.id').on('g.is_default', '=', true).on('g.deleted_at', 'is', null))
    .selectAll('p')
    .select('g.id as default_group_id')
    .where('p.organization_id', '=', organizationId);
}

/** The caller's program (undefined also for another organization's program). */
export function findProgram(db: Db, organizationId: string, programId: string): Promise<ProgramWithDefaultGroup | undefined> {
  return selectPrograms(db, organizationId).where('p.id', '=', programId).executeTakeFirst();
}

/** A program by the public key of its script tag: the script's endpoints know no organization. */
export function findProgramByPublicKey(db: Db, publicKey: string): Promise<ProgramRow | undefined> {
  return db.selectFrom('programs').selectAll().where('public_key', '=', publicKey).executeTakeFirst();
}

/** A program by its subdomain (unique across the service: the partner portal's address). */
export function findProgramBySubdomain(db: Db, subdomain: string): Promise<ProgramRow | undefined> {
  return db.selectFrom('programs').selectAll().where('subdomain', '=', subdomain).executeTakeFirst();
}

/** The subdomains taken among `base` and `base-<n>`. */
export async function selectSubdomainsLike(db: Db, base: string): Promise<string[]> {
  const rows = await db
    .selectFrom('programs')
    .select('subdomain')
    .where((eb) => eb.or([eb('subdomain', '=', base), eb('subdomain', 'like', `${base}-%`)]))
    .execute();
  return rows.map((r) => r.subdomain);
}

export async function insertProgram(db: Db, program: Insertable<ProgramsTable>): Promise<void> {
  await db.insertInto('programs').values(program).execute();
}

export async function updateProgramRow(
  db: Db,
  organizationId: string,
  programId: string,
  changes: Updateable<ProgramsTable>,
): Promise<void> {
  await db.updateTable('programs').set(changes).where('id', '=', programId).where('organization_id', '=', organizationId).execute();
}

/**
 * Locks the program's row until the transaction ends: changes of its default group take this
 * lock first, so two of them cannot race. Undefined when there is no such program.
 */
export function lockProgram(db: Db, programId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('programs').select('id').where('id', '=', programId).forUpdate().executeTakeFirst();
}
