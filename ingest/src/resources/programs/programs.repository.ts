import type { Db } from '../../db/database.js';
import type { ProgramRow } from '../../db/schema.js';

export type ProgramWithDefaultGroup = ProgramRow & { default_group_id: string };

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
