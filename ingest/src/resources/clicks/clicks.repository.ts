import type { Insertable, SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ClickRow, ClicksTable } from '../../db/schema.js';

export type ClickInsert = Insertable<ClicksTable>;

export function findClick(db: Db, organizationId: string, clickId: string): Promise<ClickRow | undefined> {
  return db.selectFrom('clicks').selectAll().where('organization_id', '=', organizationId).where('id', '=', clickId).executeTakeFirst();
}

/** Clicks in one multi-row INSERT (the click writer's group commit). */
export async function insertClicks(db: Db, rows: ClickInsert[]): Promise<void> {
  await db.insertInto('clicks').values(rows).execute();
}

/** A click of the program, as the script's signup names it (no organization scope: the program is the tenant). */
export function findProgramClick(db: Db, programId: string, clickId: string): Promise<ClickRow | undefined> {
  return db.selectFrom('clicks').selectAll().where('id', '=', clickId).where('program_id', '=', programId).executeTakeFirst();
}

/** Where a click came from and when: what the script's click answers with. */
export type ClickOrigin = Pick<ClickRow, 'id' | 'partner_id' | 'created_at'>;

/** The click `clickId` when it is a click on this link made after `since`. */
export function findRecentLinkClick(db: Db, clickId: string, linkId: string, since: Date): Promise<ClickOrigin | undefined> {
  return db
    .selectFrom('clicks')
    .select(['id', 'partner_id', 'created_at'])
    .where('id', '=', clickId)
    .where('link_id', '=', linkId)
    .where('created_at', '>', since)
    .executeTakeFirst();
}

/** The click `clickId` when it is a click of this program made after `since`. */
export function findRecentProgramClick(db: Db, clickId: string, programId: string, since: Date): Promise<ClickOrigin | undefined> {
  return db
    .selectFrom('clicks')
    .select(['id', 'partner_id', 'created_at'])
    .where('id', '=', clickId)
    .where('program_id', '=', programId)
    .where('created_at', '>', since)
    .executeTakeFirst();
}

/** A click, and whether a live customer was made from it (`claimed`), in one statement. */
export function findClickWithClaim(db: Db, clickId: string): Promise<(ClickOrigin & { claimed: SqlBool }) | undefined> {
  return db
    .selectFrom('clicks')
    .select(['id', 'partner_id', 'created_at'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('customers')
            .select('id')
            .whereRef('customers.click_id', '=', 'clicks.id')
            .where('customers.deleted_at', 'is', null),
        )
        .as('claimed'),
    )
    .where('id', '=', clickId)
    .executeTakeFirst();
}

/** Moves a click's time back or forth (the test hooks); undefined when there is no such click. */
export function setClickTime(db: Db, clickId: string, at: Date): Promise<{ id: string } | undefined> {
  return db.updateTable('clicks').set({ created_at: at, updated_at: at }).where('id', '=', clickId).returning('id').executeTakeFirst();
}
