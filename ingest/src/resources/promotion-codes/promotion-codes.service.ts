import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import { conflictOnUnique } from '../../db/errors.js';
import type { PartnerRow, PromotionCodeRow } from '../../db/schema.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import { requireGroup } from '../groups/groups.service.js';
import { requirePartner } from '../partners/partners.service.js';
import { requireProgram } from '../programs/programs.service.js';
import {
  findPromotionCode,
  insertPromotionCode,
  selectPromotionCodeList,
  softDeletePromotionCode,
  updatePromotionCodeById,
} from './promotion-codes.repository.js';
import type { PromotionCodeCreate, PromotionCodeListInput, PromotionCodeObject, PromotionCodeUpdate } from './promotion-codes.schema.js';
import { presentPromotionCodes } from './promotion-codes.serializer.js';

/** The caller's live promotion code, or 404. */
export async function requirePromotionCode(db: Db, organizationId: string, id: string): Promise<PromotionCodeRow> {
  const found = await findPromotionCode(db, organizationId, id);
  if (!found) throw notFound('promotion code', id);
  return found;
}

/** A page of the program's codes, with the requested expansions. */
export async function listPromotionCodes(
  db: Db,
  organizationId: string,
  query: PromotionCodeListInput,
): Promise<Page<PromotionCodeObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filters = { programId: program.id, partnerId: query.partner_id };
  const page = await paginate(selectPromotionCodeList(db, organizationId, filters), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: await presentPromotionCodes(db, page.rows, query.expand) };
}

const duplicateCode = () => conflict('A promotion code with this code already exists in the program');

export async function createPromotionCode(
  db: Db,
  organizationId: string,
  input: z.output<typeof PromotionCodeCreate>,
): Promise<PromotionCodeRow> {
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  if (input.partner_id) {
    const partner = await requirePartner(db, organizationId, input.partner_id, 'partner_id');
    if (partner.program_id !== program.id) throw badRequest('partner_id is a partner of another program', 'partner_id');
  }
  if (input.group_id) await requireGroup(db, organizationId, input.group_id, { programId: program.id, param: 'group_id' });
  const now = new Date();
  return conflictOnUnique(['promotion_codes_program_code'], duplicateCode, () =>
    insertPromotionCode(db, {
      id: newId('promotionCode'),
      organization_id: organizationId,
      program_id: program.id,
      code: input.code,
      type: input.type,
      value: input.value,
      partner_id: input.partner_id ?? null,
      group_id: input.group_id ?? null,
      active: input.active ?? true,
      created_at: now,
      updated_at: now,
    }),
  );
}

export async function updatePromotionCode(
  db: Db,
  organizationId: string,
  id: string,
  input: z.output<typeof PromotionCodeUpdate>,
): Promise<PromotionCodeRow> {
  const current = await requirePromotionCode(db, organizationId, id);
  const type = input.type ?? current.type;
  const value = input.value ?? current.value;
  if (type === 'percentage' && value > 100) throw badRequest('value must be 0–100 for a percentage code', 'value');
  const updated = await conflictOnUnique(['promotion_codes_program_code'], duplicateCode, () =>
    updatePromotionCodeById(db, current.id, input),
  );
  if (!updated) throw notFound('promotion code', id);
  return updated;
}

export async function deletePromotionCode(db: Db, organizationId: string, id: string): Promise<void> {
  const code = await requirePromotionCode(db, organizationId, id);
  await softDeletePromotionCode(db, code.id);
}

/** A code applies to a customer referred by `partner` when it is that partner's, their group's, or program-wide. */
export function codeAppliesTo(code: PromotionCodeRow, partner: Pick<PartnerRow, 'id' | 'group_id' | 'program_id'>): boolean {
  if (!code.active || code.program_id !== partner.program_id) return false;
  if (code.partner_id) return code.partner_id === partner.id;
  if (code.group_id) return code.group_id === partner.group_id;
  return true;
}
