import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { SessionsTable, UserRow, UsersTable } from '../../db/schema.js';

export function insertUser(db: Db, user: Insertable<UsersTable>): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

/** The live user signing in with this e-mail (compared case-insensitively), of any organization. */
export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function selectUsers(db: Db, organizationId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function someUsers(db: Db, limit: number): Promise<{ id: string }[]> {
  return db.selectFrom('users').select('id').where('deleted_at', 'is', null).limit(limit).execute();
}

export function insertSession(db: Db, session: Insertable<SessionsTable>): Promise<void> {
  return db
    .insertInto('sessions')
    .values(session)
    .execute()
    .then(() => undefined);
}

/** The session of a token's hash with its user, unless it has expired or the user was removed. */
export function findLiveSession(db: Db, id: string, now: Date) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id as session_id', 's.csrf_token', 's.expires_at', 'u.id', 'u.organization_id', 'u.email', 'u.name', 'u.role'])
    .where('s.id', '=', id)
    .where('s.expires_at', '>', now)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
}

export function extendSession(db: Db, id: string, expiresAt: Date): Promise<unknown> {
  return db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export function deleteSession(db: Db, id: string): Promise<unknown> {
  return db.deleteFrom('sessions').where('id', '=', id).execute();
}

export function deleteExpiredSessions(db: Db, now: Date): Promise<unknown> {
  return db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
