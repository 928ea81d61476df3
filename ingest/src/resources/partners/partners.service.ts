import { z } from 'zod';
import type { Db } from '../../db/database.js';
import { conflictOnUnique } from '../../db/errors.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { PartnerRow, ProgramRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { validate } from '../../http/validation.js';
import { newId } from '../../ids.js';
import { type OutgoingEmail, queueEmail } from '../../mail/outbox.js';
import type { SharedStore } from '../../store/index.js';
import { requireGroup } from '../groups/groups.service.js';
import { invalidateLinkLookups } from '../links/link-cache.js';
// The links' own SQL, not their service: the links service reads partners (requirePartner), and
// a partner's deletion takes its links with it in one transaction.
import { softDeletePartnerLinks } from '../links/links.repository.js';
import { findProgram } from '../programs/programs.repository.js';
import { requireProgram } from '../programs/programs.service.js';
import { flagSharedPayoutAccount } from '../risk/risk-flags.js';
import { payoutAccountOf } from '../risk/risk-identity.js';
import { welcomeEmail } from './partner-emails.js';
import {
  countPartnerList,
  countPartnersAwaitingReview,
  findPartner,
  findPartnerByEmail,
  insertPartner,
  lockProgramPartners,
  selectPartnerList,
  selectRankedPartners,
  softDeletePartner,
  updatePartnerRow,
  updatePartnerRows,
} from './partners.repository.js';
import {
  PARTNER_STATUS_ACTIONS,
  PAYOUT_DETAILS,
  type PartnerCreateInput,
  type PartnerListQuery,
  type PartnerObject,
  type PartnerRetrieveQuery,
  PartnerStatusChange,
  type PartnerStatusChangeInput,
  type PartnerUpdateInput,
  type RankingStat,
} from './partners.schema.js';
import { presentPartners, toPartner } from './partners.serializer.js';

/** The caller's live partner, or 404. */
export async function requirePartner(db: Db, organizationId: string, partnerId: string, param?: string): Promise<PartnerRow> {
  const found = await findPartner(db, organizationId, partnerId);
  if (!found) throw notFound('partner', partnerId, param);
  return found;
}

/** A partner named by a filter of a program's list must be one of the program's: another's is a 404, not an empty list. */
export async function requireProgramPartner(db: Db, organizationId: string, programId: string, partnerId: string): Promise<PartnerRow> {
  const partner = await requirePartner(db, organizationId, partnerId, 'partner_id');
  if (partner.program_id !== programId) throw notFound('partner', partnerId, 'partner_id');
  return partner;
}

/** A page of a program's partners, with the list's expansions (the program with its terms) and stats. */
export async function listPartners(db: Db, organizationId: string, query: z.output<typeof PartnerListQuery>): Promise<Page<PartnerObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filtered = selectPartnerList(db, organizationId, {
    programId: program.id,
    groupId: query.group_id,
    status: query.status,
    email: query.email,
    search: query.search,
  });
  const page = await paginate(filtered, query, { createdAt: 'created_at', id: 'id' });
  const rows = await presentPartners(db, page.rows, query.expand, { programWithTerms: true, include: query.include });
  return { ...page, rows };
}

/**
 * A page of a program's partners ranked by a stat, highest first, with their stats (the
 * dashboard's sortable list; the API's lists are by creation, with cursors).
 */
export async function rankPartners(
  db: Db,
  organizationId: string,
  query: { program_id: string; status?: string; search?: string; stat: RankingStat; limit: number; offset: number },
): Promise<{ rows: PartnerObject[]; total_count: number; has_more: boolean }> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filters = { programId: program.id, status: query.status, search: query.search };
  const [rows, total] = await Promise.all([
    selectRankedPartners(db, organizationId, filters, query.stat, query.limit, query.offset),
    countPartnerList(db, organizationId, filters),
  ]);
  const partners = rows.map(({ rank: _rank, ...row }) => row);
  return {
    rows: await presentPartners(db, partners, [], { include: ['stats'] }),
    total_count: total,
    has_more: query.offset + rows.length < total,
  };
}

/**
 * The organization's live partners of these ids, in one query, for a page that names the partners
 * a report lists (the dashboard's payout generation); an id that is not one is absent.
 */
export async function partnersByIds(db: Db, organizationId: string, ids: Iterable<string>): Promise<Map<string, PartnerRow>> {
  const found = await loadByIds(db, 'partners', ids);
  return new Map([...found].filter(([, p]) => p.organization_id === organizationId));
}

/** The caller's live partner with the requested expansions and stats, or 404. */
export async function retrievePartner(
  db: Db,
  organizationId: string,
  partnerId: string,
  query: z.output<typeof PartnerRetrieveQuery>,
): Promise<PartnerObject> {
  const partner = await requirePartner(db, organizationId, partnerId);
  return (await presentPartners(db, [partner], query.expand, { include: query.include }))[0];
}

/**
 * The Partnership Program API's own shape for a duplicate e-mail (ingest/docs/api.md#errors): a
 * plain message and the existing partner in `data`.
 */
function partnerExists(existing: PartnerRow): ApiError {
  return new ApiError('conflict_error', 'Partner with this email already exists', {
    plainMessage: true,
    extra: { data: toPartner(existing) },
  });
}

function checkPayoutDetails(method: PartnerRow['payout_method'], details: Record<string, string>): Record<string, string> {
  const schema = PAYOUT_DETAILS[method as keyof typeof PAYOUT_DETAILS];
  return validate(z.object({ payout_details: schema }), { payout_details: details }, 'body').payout_details;
}

/** An e-mail taken in the program: 409 with the partner that has it. */
const emailTaken = (db: Db, programId: string, email: string) => async () => {
  const existing = await findPartnerByEmail(db, programId, email);
  return existing && partnerExists(existing);
};

export async function createPartner(
  db: Db,
  organizationId: string,
  input: PartnerCreateInput,
  onEmailQueued: () => void,
): Promise<PartnerRow> {
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  const groupId = input.group_id
    ? (await requireGroup(db, organizationId, input.group_id, { programId: program.id, param: 'group_id' })).id
    : program.default_group_id;
  const payoutMethod = input.payout_method ?? 'none';
  const payoutDetails = checkPayoutDetails(payoutMethod, input.payout_details ?? {});

  const existing = await findPartnerByEmail(db, program.id, input.email);
  if (existing) throw partnerExists(existing);

  const now = new Date();
  const partner = await conflictOnUnique(['partners_program_email'], emailTaken(db, program.id, input.email), () =>
    inTransaction(db, async (trx) => {
      const row = await insertPartner(trx, {
        id: newId('partner'),
        organization_id: organizationId,
        program_id: program.id,
        group_id: groupId,
        status: input.status ?? 'active',
        first_name: input.first_name,
        last_name: input.last_name,
        email: input.email,
        company_name: input.company_name ?? null,
        country_code: input.country_code ?? null,
        payout_method: payoutMethod,
        payout_details: JSON.stringify(payoutDetails),
        payout_account: payoutAccountOf(payoutMethod, payoutDetails) ?? '',
        completed_onboarding: input.completed_onboarding ?? true,
        rejection_note: input.rejection_note ?? null,
        internal_note: input.internal_note ?? null,
        suspension_reason: input.suspension_reason ?? null,
        first_customer_email_active: input.first_customer_email_active ?? true,
        new_customer_email_active: input.new_customer_email_active ?? true,
        payout_paid_email_active: input.payout_paid_email_active ?? true,
        created_at: now,
        updated_at: now,
      });
      if (input.send_welcome_email) await queueEmail(trx, welcomeEmail(row, program));
      await flagSharedPayoutAccount(trx, row);
      return row;
    }),
  );
  if (input.send_welcome_email) onEmailQueued();
  return partner;
}

export async function updatePartner(db: Db, organizationId: string, partnerId: string, input: PartnerUpdateInput): Promise<PartnerRow> {
  const current = await requirePartner(db, organizationId, partnerId);
  if (input.group_id) await requireGroup(db, organizationId, input.group_id, { programId: current.program_id, param: 'group_id' });
  if (input.email && input.email.toLowerCase() !== current.email.toLowerCase()) {
    const existing = await findPartnerByEmail(db, current.program_id, input.email);
    if (existing) throw partnerExists(existing);
  }

  // Details belong to a payout method: a new method without new details starts empty.
  const method = input.payout_method ?? current.payout_method;
  const methodChanged = method !== current.payout_method;
  const details = input.payout_details !== undefined || methodChanged ? checkPayoutDetails(method, input.payout_details ?? {}) : undefined;

  const { payout_details: _ignored, ...plain } = input;
  return conflictOnUnique(['partners_program_email'], emailTaken(db, current.program_id, input.email ?? current.email), () =>
    inTransaction(db, async (trx) => {
      const updated = await updatePartnerRow(trx, current.id, {
        ...plain,
        ...(details ? { payout_details: JSON.stringify(details), payout_account: payoutAccountOf(method, details) ?? '' } : {}),
        updated_at: new Date(),
      });
      // Partners are only soft deleted, so the row read above is still there.
      if (!updated) throw notFound('partner', partnerId);
      if (details) await flagSharedPayoutAccount(trx, updated);
      return updated;
    }),
  );
}

/** What a status change did: the partners it changed, and those already as asked (left untouched). */
export interface PartnerStatusChangeResult {
  changed: PartnerRow[];
  unchanged: PartnerRow[];
}

/**
 * One status action (approve, reject, suspend, reactivate) for several partners of a program, in
 * one SQL transaction: all of them or none (ingest/docs/dashboard.md#bulk-partner-status-changes).
 * The rules are those of a single change (`updatePartner`): the caller's live partner, of this
 * program, and any status may follow any other. A partner already as asked is left untouched, so
 * it gets no event and keeps its `updated_at`. The changed partners' `partner.updated` events are
 * written by the trigger of migration 0009 in the same statement; a status change sends the
 * partner no e-mail, as a single change sends none (ingest/docs/partner-emails.md).
 */
export async function changePartnerStatuses(
  db: Db,
  organizationId: string,
  programId: string,
  input: PartnerStatusChangeInput,
): Promise<PartnerStatusChangeResult> {
  const { ids, action, ...notes } = validate(PartnerStatusChange, input, 'body');
  const program = await requireProgram(db, organizationId, programId, 'program_id');
  // The fields the action sets: its status, and its note when one was given (null clears it).
  const wanted: Pick<PartnerRow, 'status'> & Partial<Pick<PartnerRow, 'rejection_note' | 'suspension_reason'>> = {
    status: PARTNER_STATUS_ACTIONS[action],
  };
  if (notes.rejection_note !== undefined) wanted.rejection_note = notes.rejection_note;
  if (notes.suspension_reason !== undefined) wanted.suspension_reason = notes.suspension_reason;
  const differs = (p: PartnerRow) => Object.entries(wanted).some(([field, value]) => p[field as keyof typeof wanted] !== value);
  return inTransaction(db, async (trx) => {
    const partners = await lockProgramPartners(trx, organizationId, program.id, [...new Set(ids)]);
    const found = new Set(partners.map((p) => p.id));
    const missing = [...new Set(ids)].filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new ApiError('not_found_error', `Not partners of this program (unknown or deleted): ${missing.join(', ')}`, { param: 'ids' });
    }
    const changing = partners.filter(differs);
    const updated =
      changing.length > 0
        ? await updatePartnerRows(
            trx,
            changing.map((p) => p.id),
            { ...wanted, updated_at: new Date() },
          )
        : [];
    const byId = new Map(updated.map((p) => [p.id, p]));
    return { changed: changing.map((p) => byId.get(p.id) ?? p), unchanged: partners.filter((p) => !differs(p)) };
  });
}

/**
 * How many partners await review (pending, as the partner list with `status=pending` shows them)
 * in each program of the organization, read from a partial index in one query
 * (ingest/docs/dashboard.md#pending-partners-in-the-navigation). A program without any is absent.
 */
export async function partnersAwaitingReview(db: Db, organizationId: string): Promise<Map<string, number>> {
  const rows = await countPartnersAwaitingReview(db, organizationId).execute();
  return new Map(rows.map((r) => [r.program_id, r.n]));
}

/**
 * Soft delete: the partner disappears from the API and frees its e-mail; its links are deleted
 * with it (they stop resolving at once); its money records stay.
 */
export async function deletePartner(db: Db, store: SharedStore, organizationId: string, partnerId: string): Promise<void> {
  const partner = await requirePartner(db, organizationId, partnerId);
  const now = new Date();
  const links = await inTransaction(db, async (trx) => {
    await softDeletePartner(trx, partner.id, now);
    return softDeletePartnerLinks(trx, partner.id, now);
  });
  await Promise.all(links.map((link) => invalidateLinkLookups(store, link)));
}

/**
 * Queues, in the caller's SQL transaction, the e-mail `build` makes for a live partner of the
 * program (undefined when their switch does not want it: ingest/docs/partner-emails.md); true when
 * queued, so the caller kicks the mailer after its commit.
 */
export async function queuePartnerEmail(
  trx: Db,
  about: { organization_id: string; partner_id: string; program_id: string },
  build: (partner: PartnerRow, program: ProgramRow) => OutgoingEmail | undefined,
): Promise<boolean> {
  const partner = await findPartner(trx, about.organization_id, about.partner_id);
  const program = partner && (await findProgram(trx, about.organization_id, about.program_id));
  const email = partner && program ? build(partner, program) : undefined;
  if (email) await queueEmail(trx, email);
  return email !== undefined;
}
