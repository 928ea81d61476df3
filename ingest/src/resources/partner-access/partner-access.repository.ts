import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PartnerSessionsTable, PartnerSignInLinksTable } from '../../db/schema.js';

/** The SQL of the portal's sessions and one-time sign-in links (ingest/docs/partner-portal.md). */

export async function insertPartnerSession(db: Db, session: Insertable<PartnerSessionsTable>): Promise<void> {
  await db.insertInto('partner_sessions').values(session).execute();
}

/** A live session of a live partner, with the partner's program; undefined when expired, unknown or the partner was deleted. */
export function findLivePartnerSession(db: Db, id: string, now: Date) {
  return db
    .selectFrom('partner_sessions as s')
    .innerJoin('partners as p', 'p.id', 's.partner_id')
    .select(['s.id as session_id', 's.kind', 's.csrf_token', 's.expires_at', 'p.id as partner_id', 'p.program_id', 'p.organization_id'])
    .where('s.id', '=', id)
    .where('s.expires_at', '>', now)
    .where('p.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function extendPartnerSession(db: Db, id: string, expiresAt: Date): Promise<void> {
  await db.updateTable('partner_sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function deletePartnerSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('partner_sessions').where('id', '=', id).execute();
}

export async function insertSignInLink(db: Db, link: Insertable<PartnerSignInLinksTable>): Promise<void> {
  await db.insertInto('partner_sign_in_links').values(link).execute();
}

/**
 * Uses a sign-in link: marks it used and answers its partner, in one statement, so that two
 * requests with one link cannot both sign in. Undefined when unknown, used or expired.
 */
export async function useSignInLink(db: Db, id: string, now: Date): Promise<{ partner_id: string } | undefined> {
  return db
    .updateTable('partner_sign_in_links')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('partner_id')
    .executeTakeFirst();
}

/** A sign-in link that could still be used, with its live partner's program (the confirmation page asks before using it). */
export async function findUsableSignInLink(db: Db, id: string, now: Date): Promise<{ partner_id: string; program_id: string } | undefined> {
  return db
    .selectFrom('partner_sign_in_links as l')
    .innerJoin('partners as p', 'p.id', 'l.partner_id')
    .select(['l.partner_id', 'p.program_id'])
    .where('l.id', '=', id)
    .where('l.used_at', 'is', null)
    .where('l.expires_at', '>', now)
    .where('p.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Sessions and links past their expiry; a used link is kept until it expires (it answers "used", not "unknown"). */
export async function deleteExpiredPartnerAccess(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('partner_sessions').where('expires_at', '<=', now).execute();
  await db.deleteFrom('partner_sign_in_links').where('expires_at', '<=', now).execute();
}

/** The browser tests' hook: every session and link of the partner expires now; false when there is no such partner. */
export async function expirePartnerAccess(db: Db, partnerId: string): Promise<boolean> {
  const partner = await db.selectFrom('partners').select('id').where('id', '=', partnerId).executeTakeFirst();
  if (!partner) return false;
  const past = sql<Date>`now() - interval '1 second'`;
  await db.updateTable('partner_sessions').set({ expires_at: past }).where('partner_id', '=', partnerId).execute();
  await db.updateTable('partner_sign_in_links').set({ expires_at: past }).where('partner_id', '=', partnerId).execute();
  return true;
}
