import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { UserRow } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';
import { newId, randomBase62, sha256 } from '../../ids.js';
import { generatePassword, hashPassword, unusableHash, verifyPassword } from './passwords.js';
import {
  deleteExpiredSessions,
  deleteSession,
  extendSession,
  findLiveSession,
  findUserByEmail,
  insertSession,
  insertUser,
  selectUsers,
  someUsers,
} from './users.repository.js';

export const USER_ROLES = ['owner', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A session lasts a week from its last use; it is renewed at most once a day. */
const SESSION_MS = 7 * 86_400_000;
const RENEW_AFTER_MS = 86_400_000;

export interface NewUser {
  email: string;
  name?: string | null;
  role: UserRole;
  /** Left out: one is generated and returned, to be shown once. */
  password?: string;
}

const emailTaken = (email: string) => conflict(`A user with the e-mail ${email} already exists`);

/** 409 when a live user already signs in with this e-mail. */
export async function checkEmailFree(db: Db, email: string): Promise<void> {
  if (await findUserByEmail(db, email.trim())) throw emailTaken(email);
}

export async function createUser(db: Db, organizationId: string, input: NewUser): Promise<{ user: UserRow; password: string }> {
  const password = input.password ?? generatePassword();
  const now = new Date();
  try {
    const user = await insertUser(db, {
      id: newId('user'),
      organization_id: organizationId,
      email: input.email.trim(),
      name: input.name ?? null,
      role: input.role,
      password_hash: await hashPassword(password),
      created_at: now,
      updated_at: now,
    });
    return { user, password };
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken(input.email);
    throw err;
  }
}

export const listUsers = (db: Db, organizationId: string) => selectUsers(db, organizationId);

/** Whether anyone can sign in to the dashboard at all (a database from before it has no users). */
export const anyUser = async (db: Db): Promise<boolean> => (await someUsers(db, 1)).length > 0;

/** The user these credentials sign in, or null; an unknown e-mail costs the same time as a wrong password. */
export async function checkCredentials(db: Db, email: string, password: string): Promise<UserRow | null> {
  const user = await findUserByEmail(db, email.trim());
  const matches = await verifyPassword(password, user?.password_hash ?? (await unusableHash()));
  return user && matches ? user : null;
}

export interface OpenedSession {
  /** The cookie's value; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

export async function openSession(db: Db, userId: string): Promise<OpenedSession> {
  const token = randomBase62(43);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SESSION_MS);
  await insertSession(db, { id: sha256(token), user_id: userId, csrf_token: randomBase62(32), created_at: now, expires_at: expiresAt });
  return { token, expiresAt };
}

export type SignedInUser = NonNullable<Awaited<ReturnType<typeof findLiveSession>>> & {
  /** The session was renewed by this request: its cookie must be given the new expiry. */
  renewed: boolean;
};

/** The signed-in user of a session cookie's token, renewing the session once a day; null when it is unknown or expired. */
export async function readSession(db: Db, token: string): Promise<SignedInUser | null> {
  const now = new Date();
  const session = await findLiveSession(db, sha256(token), now);
  if (!session) return null;
  const renewed = new Date(now.getTime() + SESSION_MS);
  if (renewed.getTime() - new Date(session.expires_at).getTime() < RENEW_AFTER_MS) return { ...session, renewed: false };
  await extendSession(db, session.session_id, renewed);
  return { ...session, expires_at: renewed, renewed: true };
}

export const closeSession = (db: Db, token: string) => deleteSession(db, sha256(token));

export const purgeExpiredSessions = (db: Db) => deleteExpiredSessions(db, new Date());
