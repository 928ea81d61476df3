import countries from 'i18n-iso-countries';
import type { Db } from '../../db/database.js';
import type { ClickRow } from '../../db/schema.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { parseUserAgent } from '../../http/user-agent.js';
import { newId } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import { requireLink, resolveLinks } from '../links/links.service.js';
import { requirePartner } from '../partners/partners.service.js';
import { requireProgram } from '../programs/programs.service.js';
import type { ClickWriter } from './click-writer.js';
import { findClick, setClickTime } from './clicks.repository.js';
import type { ClickCreateInput } from './clicks.schema.js';

/** The caller's click, or 404. */
export async function requireClick(db: Db, organizationId: string, clickId: string, param?: string): Promise<ClickRow> {
  const found = await findClick(db, organizationId, clickId);
  if (!found) throw notFound('click', clickId, param);
  return found;
}

/** What the request itself tells about the visitor. */
export interface VisitorContext {
  userAgent?: string;
  /** The value of the trusted CDN country header, when configured. */
  headerCountry?: string;
}

/**
 * The Partnership Program API's own body for an unknown (param, value) (ingest/docs/api.md#errors).
 */
export const linkNotFound = () => new ApiError('not_found_error', 'Link not found', { plainMessage: true });

/** CDN headers use XX (unknown) and T1 (Tor) besides real codes; only real codes are kept. */
function countryFromHeader(value: string | undefined): string | null {
  const code = value?.trim().toUpperCase();
  return code && code.length === 2 && countries.isValid(code) ? code : null;
}

export interface Attribution {
  partnerId: string;
  programId: string;
  linkId: string | null;
}

async function attributeByPartner(db: Db, organizationId: string, input: ClickCreateInput): Promise<Attribution> {
  if (!input.partner_id) throw badRequest('partner_id is required when link_id is given', 'partner_id');
  const partner = await requirePartner(db, organizationId, input.partner_id, 'partner_id');
  if (input.program_id && input.program_id !== partner.program_id) {
    throw badRequest('program_id is not the program of this partner', 'program_id');
  }
  let linkId: string | null = null;
  if (input.link_id) {
    const link = await requireLink(db, organizationId, input.link_id, 'link_id');
    if (link.partner_id !== partner.id) throw badRequest('link_id is a link of another partner', 'link_id');
    linkId = link.id;
  }
  return { partnerId: partner.id, programId: partner.program_id, linkId };
}

async function attributeByLink(db: Db, store: SharedStore, organizationId: string, input: ClickCreateInput): Promise<Attribution> {
  if (input.param === undefined) throw badRequest('param is required with value', 'param');
  if (input.value === undefined) throw badRequest('value is required with param', 'value');
  const links = await resolveLinks(db, store, { organizationId, programId: input.program_id, param: input.param, value: input.value });
  if (links.length === 0) {
    // A program of another organization is a 404 of its own; a found link vouches for its program.
    if (input.program_id) await requireProgram(db, organizationId, input.program_id, 'program_id');
    throw linkNotFound();
  }
  if (links.length > 1) {
    throw badRequest('More than one program has a link with this param and value; give program_id', 'program_id');
  }
  return { partnerId: links[0].partner_id, programId: links[0].program_id, linkId: links[0].id };
}

/**
 * Records a click by method 1 (partner_id, optional link_id) or method 2 (param + value, optional
 * program_id). Browser and, unless given, device come from the User-Agent.
 */
export async function recordClick(
  db: Db,
  store: SharedStore,
  write: ClickWriter,
  organizationId: string,
  input: ClickCreateInput,
  visitor: VisitorContext,
): Promise<ClickRow> {
  const byPartner = input.partner_id !== undefined || input.link_id !== undefined;
  const byLink = input.param !== undefined || input.value !== undefined;
  if (byPartner && byLink) throw badRequest('Use either partner_id (method 1) or param and value (method 2), not both');
  if (!byPartner && !byLink) throw badRequest('Give partner_id (method 1), or param and value (method 2)');
  const target = byPartner ? await attributeByPartner(db, organizationId, input) : await attributeByLink(db, store, organizationId, input);

  return insertClick(
    write,
    { organizationId, ...target, country: input.country, device: input.device, page: input.page, referrer: input.referrer },
    visitor,
  );
}

export interface NewClick extends Attribution {
  organizationId: string;
  country?: string;
  device?: string;
  page?: string;
  referrer?: string;
  /** The fingerprint of the visitor's browser, for clicks the script makes (the risk rules). */
  visitorHash?: string | null;
  /** The names of the ad click parameters of the landing URL (the paid-ad traffic rule). */
  adClickIds?: string[];
}

/** Writes a click; browser and, unless given, device come from the User-Agent, country from the body or the CDN header. */
export async function insertClick(
  write: ClickWriter,
  click: NewClick,
  visitor: VisitorContext,
  id = newId('click'),
  now = new Date(),
): Promise<ClickRow> {
  const ua = parseUserAgent(visitor.userAgent);
  const row: ClickRow = {
    id,
    organization_id: click.organizationId,
    program_id: click.programId,
    partner_id: click.partnerId,
    link_id: click.linkId,
    country: click.country ?? countryFromHeader(visitor.headerCountry),
    state: null,
    device: click.device ?? ua.device,
    page: click.page ?? null,
    browser: ua.browser,
    referrer: click.referrer ?? null,
    visitor_hash: click.visitorHash ?? null,
    ad_click_ids: click.adClickIds && click.adClickIds.length > 0 ? click.adClickIds : null,
    created_at: now,
    updated_at: now,
  };
  await write(row);
  return row;
}

/**
 * For the browser tests only (the test hooks, off unless SVC_TEST_HOOKS=1): makes a click
 * `seconds` old as the server sees it, its created_at moved back, so that a test reaches the end
 * of a referral's cookie_duration without waiting days. Any click of any organization: the hooks
 * carry no API key.
 */
export async function ageClick(db: Db, clickId: string, seconds: unknown): Promise<void> {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw badRequest('seconds must be a number of seconds, at least 0', 'seconds');
  }
  const at = new Date(Date.now() - seconds * 1000);
  if (Number.isNaN(at.getTime())) throw badRequest('seconds reaches before the earliest date', 'seconds');
  if (!(await setClickTime(db, clickId, at))) throw notFound('click', clickId);
}
