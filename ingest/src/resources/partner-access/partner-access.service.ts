import type { Db } from '../../db/database.js';
import type { PartnerRow, PartnerSessionsTable, ProgramRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { randomBase62, sha256 } from '../../ids.js';
import { queueEmail } from '../../mail/outbox.js';
import { type BrandedProgram, programBrand } from '../branding/branding.service.js';
import { signInLinkEmail } from '../partners/partner-emails.js';
import { findPartnerByEmail } from '../partners/partners.repository.js';
import { requirePartner } from '../partners/partners.service.js';
import { findProgramBySubdomain } from '../programs/programs.repository.js';
import { requireProgram } from '../programs/programs.service.js';
import {
  deleteExpiredPartnerAccess,
  deletePartnerSession,
  extendPartnerSession,
  findLivePartnerSession,
  findUsableSignInLink,
  insertPartnerSession,
  insertSignInLink,
  useSignInLink,
} from './partner-access.repository.js';
import type { EmbedTokenCreateInput, EmbedTokenObject } from './partner-access.schema.js';

/**
 * How partners get into their portal (ingest/docs/partner-portal.md): one-time sign-in links sent
 * by e-mail, which open a cookie session, and embed tokens made through the API, which are a
 * session of their own carried in the iframe's URL. Every token is random (about 256 bits) and
 * stored only as its SHA-256, like API keys and dashboard sessions.
 */

/** A sign-in link works once, for 15 minutes. */
export const SIGN_IN_LINK_MINUTES = 15;
/** A portal session lasts a week from its last use, renewed at most once a day (as the dashboard's). */
const SESSION_MS = 7 * 86_400_000;
const RENEW_AFTER_MS = 86_400_000;

const newToken = () => randomBase62(43);

export interface OpenedPartnerSession {
  token: string;
  expiresAt: Date;
}

async function openPartnerSession(
  db: Db,
  partnerId: string,
  kind: PartnerSessionsTable['kind'],
  expiresAt: Date,
): Promise<OpenedPartnerSession> {
  const token = newToken();
  await insertPartnerSession(db, {
    id: sha256(token),
    partner_id: partnerId,
    kind,
    csrf_token: randomBase62(32),
    created_at: new Date(),
    expires_at: expiresAt,
  });
  return { token, expiresAt };
}

export type PartnerSession = NonNullable<Awaited<ReturnType<typeof findLivePartnerSession>>> & {
  /** A cookie session renewed by this request: its cookie must carry the new expiry. */
  renewed: boolean;
};

/**
 * The live session of a token in the program, or null (unknown, expired, of a deleted partner,
 * or of another program's partner: a portal session opens one program's portal only). Cookie
 * sessions are renewed once a day; embed tokens end when they were made to.
 */
export async function readPartnerSession(
  db: Db,
  token: string,
  programId: string,
  kind: PartnerSessionsTable['kind'],
): Promise<PartnerSession | null> {
  const now = new Date();
  const session = await findLivePartnerSession(db, sha256(token), now);
  if (!session || session.program_id !== programId || session.kind !== kind) return null;
  const renewed = new Date(now.getTime() + SESSION_MS);
  if (kind === 'embed' || renewed.getTime() - new Date(session.expires_at).getTime() < RENEW_AFTER_MS)
    return { ...session, renewed: false };
  await extendPartnerSession(db, session.session_id, renewed);
  return { ...session, expires_at: renewed, renewed: true };
}

export const closePartnerSession = (db: Db, token: string) => deletePartnerSession(db, sha256(token));

export const purgeExpiredPartnerAccess = (db: Db) => deleteExpiredPartnerAccess(db, new Date());

/** The program whose portal is at `/p/:subdomain`, or undefined. */
export async function portalProgram(db: Db, subdomain: string): Promise<BrandedProgram | undefined> {
  const program = await findProgramBySubdomain(db, subdomain);
  // Every portal page shows the program's logo and colors (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color).
  return program && { ...program, brand: await programBrand(db, program.id) };
}

/** The portal's address of a program, e.g. `https://svc.example.com/p/acme`. */
export const portalUrl = (publicUrl: string, program: Pick<ProgramRow, 'subdomain'>) => `${publicUrl}/p/${program.subdomain}`;

/**
 * Sends a one-time sign-in link to the program's partner with this e-mail, if there is one (the
 * caller answers the same either way, so the form tells no one who is a partner). True when an
 * e-mail was queued, so the caller kicks the mailer.
 */
export async function sendSignInLink(db: Db, program: ProgramRow, email: string, publicUrl: string): Promise<boolean> {
  const partner = await findPartnerByEmail(db, program.id, email.trim());
  if (!partner) return false;
  await queueSignInLink(db, partner, program, publicUrl, 'sign-in');
  return true;
}

/** Makes a sign-in link for the partner and queues its e-mail, in one SQL transaction. */
export async function queueSignInLink(
  db: Db,
  partner: PartnerRow,
  program: ProgramRow,
  publicUrl: string,
  reason: 'sign-in' | 'already-a-partner',
): Promise<void> {
  const token = newToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000);
  const url = `${portalUrl(publicUrl, program)}/sign-in/${token}`;
  await inTransaction(db, async (trx) => {
    await insertSignInLink(trx, { id: sha256(token), partner_id: partner.id, created_at: now, expires_at: expiresAt });
    await queueEmail(trx, signInLinkEmail(partner, program, url, SIGN_IN_LINK_MINUTES, reason));
  });
}

/** Whether a sign-in link of this program can still be used (unknown, used, expired and another program's are not). */
export async function signInLinkUsable(db: Db, programId: string, token: string): Promise<boolean> {
  const link = await findUsableSignInLink(db, sha256(token), new Date());
  return link?.program_id === programId;
}

/** Uses a sign-in link of this program and opens a cookie session; null when the link cannot be used. */
export async function redeemSignInLink(db: Db, programId: string, token: string): Promise<OpenedPartnerSession | null> {
  if (!(await signInLinkUsable(db, programId, token))) return null;
  const used = await useSignInLink(db, sha256(token), new Date());
  if (!used) return null;
  return openPartnerSession(db, used.partner_id, 'cookie', new Date(Date.now() + SESSION_MS));
}

/**
 * `POST /v1/partners/:id/embed-tokens`: a short-lived token that opens the partner's portal in
 * an iframe of the merchant's app, without a sign-in. The token is in the iframe's URL, not in a
 * cookie, so browsers that block third-party cookies (Safari, Firefox) show it too.
 */
export async function createEmbedToken(
  db: Db,
  organizationId: string,
  partnerId: string,
  input: EmbedTokenCreateInput,
  publicUrl: string,
): Promise<EmbedTokenObject> {
  const partner = await requirePartner(db, organizationId, partnerId);
  const program = await requireProgram(db, organizationId, partner.program_id);
  const expiresAt = new Date(Date.now() + input.expires_in * 1000);
  const session = await openPartnerSession(db, partner.id, 'embed', expiresAt);
  return {
    token: session.token,
    url: `${portalUrl(publicUrl, program)}/embed/${session.token}`,
    partner_id: partner.id,
    program_id: program.id,
    expires_at: expiresAt.toISOString(),
  };
}
