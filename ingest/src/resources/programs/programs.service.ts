import type { Db } from '../../db/database.js';
import { conflictOnUnique, isUniqueViolation } from '../../db/errors.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError, notFound } from '../../http/errors.js';
import { type ListParams, type Page, paginate } from '../../http/list.js';
import { newId, newPublicKey } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import { DEFAULT_FLOW } from '../flows/default-flow.js';
import { insertFlow } from '../flows/flows.repository.js';
import { insertGroup } from '../groups/groups.repository.js';
import { forgetProgram } from './program-cache.js';
import {
  findProgram,
  insertProgram,
  type ProgramWithDefaultGroup,
  selectPrograms,
  selectSubdomainsLike,
  updateProgramRow,
} from './programs.repository.js';
import { PROGRAM_DEFAULTS, type ProgramCreateInput, type ProgramObject, type ProgramUpdateInput } from './programs.schema.js';
import { toProgram } from './programs.serializer.js';

/** The caller's program, or 404 (also for another organization's program). */
export async function requireProgram(db: Db, organizationId: string, programId: string, param?: string): Promise<ProgramWithDefaultGroup> {
  const found = await findProgram(db, organizationId, programId);
  if (!found) throw notFound('program', programId, param);
  return found;
}

/** A page of the caller's programs. */
export async function listPrograms(db: Db, organizationId: string, query: ListParams): Promise<Page<ProgramObject>> {
  const page = await paginate(selectPrograms(db, organizationId), query, { createdAt: 'p.created_at', id: 'p.id' });
  return { ...page, rows: page.rows.map(toProgram) };
}

export const DEFAULT_GROUP_NAME = 'Default';

export function subdomainFrom(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // drop the accents NFKD split off: "Café" → "cafe", not "cafe-"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug || 'program';
}

const subdomainTaken = (subdomain: string) =>
  new ApiError('conflict_error', `The subdomain ${subdomain} is taken by another program`, { param: 'subdomain' });

/** `base`, or the first `base-<n>` (n ≥ 2) no program has; a DNS label still. */
async function freeSubdomain(db: Db, base: string): Promise<string> {
  const taken = new Set(await selectSubdomainsLike(db, base));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, 63 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * A program always starts with its default group, its default flow and a public key. Its
 * subdomain is unique across the service (the portal's address): a given one that is taken is a
 * 409; one derived from the name takes the next free number, trying again when another program
 * took it meanwhile.
 */
export async function createProgram(db: Db, organizationId: string, input: ProgramCreateInput): Promise<ProgramWithDefaultGroup> {
  if (input.subdomain !== undefined) {
    const subdomain = input.subdomain;
    return conflictOnUnique(
      ['programs_subdomain'],
      () => subdomainTaken(subdomain),
      () => insertNewProgram(db, organizationId, input, subdomain),
    );
  }
  for (let attempt = 1; ; attempt++) {
    const subdomain = await freeSubdomain(db, subdomainFrom(input.name));
    try {
      return await insertNewProgram(db, organizationId, input, subdomain);
    } catch (err) {
      if (!isUniqueViolation(err, 'programs_subdomain') || attempt >= 5) throw err;
    }
  }
}

async function insertNewProgram(
  db: Db,
  organizationId: string,
  input: ProgramCreateInput,
  subdomain: string,
): Promise<ProgramWithDefaultGroup> {
  const now = new Date();
  const programId = newId('program');
  await inTransaction(db, async (trx) => {
    await insertProgram(trx, {
      id: programId,
      organization_id: organizationId,
      name: input.name,
      product_name: input.product_name ?? input.name,
      subdomain,
      type: input.type ?? PROGRAM_DEFAULTS.type,
      status: input.status ?? PROGRAM_DEFAULTS.status,
      currency_code: input.currency_code ?? PROGRAM_DEFAULTS.currency_code,
      cookie_duration: input.cookie_duration ?? PROGRAM_DEFAULTS.cookie_duration,
      url_params: JSON.stringify(input.url_params ?? PROGRAM_DEFAULTS.url_params),
      payout_term: input.payout_term ?? PROGRAM_DEFAULTS.payout_term,
      payout_methods: JSON.stringify(input.payout_methods ?? PROGRAM_DEFAULTS.payout_methods),
      attribution_model: input.attribution_model ?? PROGRAM_DEFAULTS.attribution_model,
      minimum_payout: input.minimum_payout ?? PROGRAM_DEFAULTS.minimum_payout,
      auto_approve_partners: input.auto_approve_partners ?? PROGRAM_DEFAULTS.auto_approve_partners,
      partner_terms: input.partner_terms ?? null,
      website_url: input.website_url ?? null,
      public_key: newPublicKey(),
      created_at: now,
      updated_at: now,
    });
    await insertGroup(trx, { organizationId, programId, name: DEFAULT_GROUP_NAME, description: null, isDefault: true, now });
    await insertFlow(trx, {
      id: newId('flow'),
      organization_id: organizationId,
      program_id: programId,
      group_id: null,
      name: DEFAULT_FLOW.name,
      trigger: DEFAULT_FLOW.trigger,
      conditions: JSON.stringify(DEFAULT_FLOW.conditions),
      reward: JSON.stringify(DEFAULT_FLOW.reward),
      approval: JSON.stringify(DEFAULT_FLOW.approval),
      active: true,
      is_default: true,
      created_at: now,
      updated_at: now,
    });
  });
  return requireProgram(db, organizationId, programId);
}

export async function updateProgram(
  db: Db,
  store: SharedStore,
  organizationId: string,
  programId: string,
  input: ProgramUpdateInput,
): Promise<ProgramWithDefaultGroup> {
  await requireProgram(db, organizationId, programId);
  const { url_params, payout_methods, ...plain } = input;
  await conflictOnUnique(
    ['programs_subdomain'],
    () => subdomainTaken(input.subdomain ?? ''),
    () =>
      updateProgramRow(db, organizationId, programId, {
        ...plain,
        ...(url_params ? { url_params: JSON.stringify(url_params) } : {}),
        ...(payout_methods ? { payout_methods: JSON.stringify(payout_methods) } : {}),
        updated_at: new Date(),
      }),
  );
  const updated = await requireProgram(db, organizationId, programId);
  await forgetProgram(store, updated);
  return updated;
}
