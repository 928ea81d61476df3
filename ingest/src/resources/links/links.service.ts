import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import { conflictOnUnique } from '../../db/errors.js';
import type { LinkRow } from '../../db/schema.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import { requirePartner } from '../partners/partners.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { cachedLinks, cacheLinks, invalidateLinkLookups, linkCacheKey, type ResolvedLink } from './link-cache.js';
import { findLink, findLinksByParamValue, insertLink, selectLinkList, softDeleteLink, updateLinkById } from './links.repository.js';
import type { LinkCreate, LinkListInput, LinkObject, LinkUpdate } from './links.schema.js';
import { presentLinks } from './links.serializer.js';

/** The caller's live link, or 404. */
export async function requireLink(db: Db, organizationId: string, linkId: string, param?: string): Promise<LinkRow> {
  const found = await findLink(db, organizationId, linkId);
  if (!found) throw notFound('link', linkId, param);
  return found;
}

function checkParam(urlParams: string[], param: string): void {
  if (!urlParams.includes(param)) {
    throw badRequest(`param must be one of the program's url_params: ${urlParams.join(', ')}`, 'param');
  }
}

/** A page of the program's links, with the requested expansions. */
export async function listLinks(db: Db, organizationId: string, query: LinkListInput): Promise<Page<LinkObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filters = { programId: program.id, partnerId: query.partner_id, param: query.param, value: query.value };
  const page = await paginate(selectLinkList(db, organizationId, filters), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: await presentLinks(db, page.rows, query.expand) };
}

const duplicateLink = () => conflict('A link with this param and value already exists in the program');

export async function createLink(db: Db, store: SharedStore, organizationId: string, input: z.output<typeof LinkCreate>): Promise<LinkRow> {
  const partner = await requirePartner(db, organizationId, input.partner_id, 'partner_id');
  const program = await requireProgram(db, organizationId, partner.program_id);
  checkParam(program.url_params, input.param);
  const now = new Date();
  const link = await conflictOnUnique(['links_program_param_value'], duplicateLink, () =>
    insertLink(db, {
      id: newId('link'),
      organization_id: organizationId,
      program_id: program.id,
      partner_id: partner.id,
      param: input.param,
      value: input.value,
      created_at: now,
      updated_at: now,
    }),
  );
  // A lookup of this value may have been cached as "not found".
  await invalidateLinkLookups(store, link);
  return link;
}

export async function updateLink(
  db: Db,
  store: SharedStore,
  organizationId: string,
  linkId: string,
  input: z.output<typeof LinkUpdate>,
): Promise<LinkRow> {
  const current = await requireLink(db, organizationId, linkId);
  if (input.param !== undefined) {
    const program = await requireProgram(db, organizationId, current.program_id);
    checkParam(program.url_params, input.param);
  }
  const updated = await conflictOnUnique(['links_program_param_value'], duplicateLink, () => updateLinkById(db, current.id, input));
  if (!updated) throw notFound('link', linkId);
  await Promise.all([invalidateLinkLookups(store, current), invalidateLinkLookups(store, updated)]);
  return updated;
}

/** Soft delete: the link stops resolving at once; clicks already recorded keep pointing at it. */
export async function deleteLink(db: Db, store: SharedStore, organizationId: string, linkId: string): Promise<void> {
  const link = await requireLink(db, organizationId, linkId);
  await softDeleteLink(db, link.id);
  await invalidateLinkLookups(store, link);
}

/**
 * The links that answer (param, value) for tracking: in one program, or across the
 * organization's programs. Served from the shared cache when possible.
 */
export async function resolveLinks(
  db: Db,
  store: SharedStore,
  q: { organizationId: string; programId?: string; param: string; value: string },
): Promise<ResolvedLink[]> {
  const key = linkCacheKey(q.organizationId, q.programId ?? null, q.param, q.value);
  const cached = await cachedLinks(store, key);
  if (cached) return cached;
  const found = await findLinksByParamValue(db, q);
  await cacheLinks(store, key, found);
  return found;
}
