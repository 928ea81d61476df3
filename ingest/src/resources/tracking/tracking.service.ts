import { isbot } from 'isbot';
import type { Db } from '../../db/database.js';
import type { ProgramRow } from '../../db/schema.js';
import { ApiError, notFound } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import type { ClickWriter } from '../clicks/click-writer.js';
import { findClickWithClaim, findProgramClick, findRecentLinkClick, findRecentProgramClick } from '../clicks/clicks.repository.js';
import { insertClick, linkNotFound, type VisitorContext } from '../clicks/clicks.service.js';
import { findCustomerOfClick } from '../customers/customers.repository.js';
import { convertClickToLead, type OnEmailQueued } from '../customers/customers.service.js';
import type { ResolvedLink } from '../links/link-cache.js';
import { resolveLinks } from '../links/links.service.js';
import { visitorHash } from '../risk/risk-identity.js';
import type { SignupResultObject, SvcDataObject, TrackClickInput, TrackSignupInput } from './tracking.schema.js';
import { type Remembered, visitMemory } from './visit-memory.js';

const DAY_MS = 86_400_000;
/** A visitor who clicks the same link again within this time gets the same click. */
const REPEAT_WINDOW_MS = 60 * 60 * 1000;

export interface Visitor extends VisitorContext {
  ip: string;
}

/** Programs by public key (the in-process cache of programs/program-cache.ts). */
export type ProgramLookup = (publicKey: string) => Promise<ProgramRow | undefined>;

/** The program a public key (pk_…) belongs to; a wrong key is an authentication error. */
export async function programByPublicKey(lookup: ProgramLookup, key: string | undefined): Promise<ProgramRow> {
  const program = key?.startsWith('pk_') ? await lookup(key) : undefined;
  if (!program) throw new ApiError('authentication_error', 'Invalid public key provided');
  return program;
}

export const isBotVisitor = (visitor: Visitor) => isbot(visitor.userAgent ?? '');

interface Visit {
  id: string;
  partnerId: string;
  createdAt: Date;
  /** The customer the click became, when the visitor named the click by their own cookie. */
  customerId: string | null;
}

/**
 * The visitor's click on this link: the one already recorded within the hour (named by their
 * cookie, or remembered in the shared store by IP address and User-Agent), else a new one.
 * IP address and User-Agent are shared by everyone behind one proxy with the same browser, so
 * such a repeat only reuses a click that nobody has signed up on, and never reveals a customer.
 *
 * A remembered click is handed out only once SQL shows it committed: the memory is written
 * before the insert, so a process that dies in between, or an insert that fails, leaves a
 * memory of a click that never existed. Without the shared store every visit is recorded as a
 * new click (repeats are then counted twice; clicks are never lost).
 */
async function recordVisit(
  db: Db,
  store: SharedStore,
  write: ClickWriter,
  link: ResolvedLink,
  program: ProgramRow,
  input: TrackClickInput,
  visitor: Visitor,
): Promise<Visit> {
  if (input.click_id) {
    const own = await findRecentLinkClick(db, input.click_id, link.id, new Date(Date.now() - REPEAT_WINDOW_MS));
    if (own)
      return { id: own.id, partnerId: own.partner_id, createdAt: new Date(own.created_at), customerId: await customerOfClick(db, own.id) };
  }

  const memory = visitMemory(store, link, visitor, REPEAT_WINDOW_MS);
  const id = newId('click');
  const now = new Date();
  const claim = await memory.claim(id, now);
  if (!claim.mine) {
    const earlier = claim.earlier ? await unclaimedClick(db, claim.earlier) : undefined;
    if (earlier) return { id: earlier.id, partnerId: earlier.partner_id, createdAt: new Date(earlier.created_at), customerId: null };
    await memory.replace(id, now);
  }
  try {
    const click = await insertClick(
      write,
      {
        organizationId: program.organization_id,
        programId: program.id,
        partnerId: link.partner_id,
        linkId: link.id,
        page: input.page,
        referrer: input.referrer,
        visitorHash: visitorHash(program.risk_salt, visitor.ip, visitor.userAgent),
        adClickIds: input.ads,
      },
      visitor,
      id,
      now,
    );
    return { id: click.id, partnerId: click.partner_id, createdAt: now, customerId: null };
  } catch (err) {
    await memory.forget();
    throw err;
  }
}

/**
 * How long a remembered click that SQL does not show yet is taken to be still on its way (its
 * insert waits for the next group commit): a repeat arriving meanwhile waits for it rather than
 * recording a second click. Past this, the click is taken never to have been committed.
 */
const IN_FLIGHT_MS = 1000;
const IN_FLIGHT_POLL_MS = [10, 20, 40, 80, 160, 320];

/**
 * The remembered click, once SQL shows it committed and while nobody has signed up on it;
 * undefined when it is claimed, or was never committed (its process died, its insert failed).
 */
async function unclaimedClick(db: Db, remembered: Remembered) {
  for (let attempt = 0; ; attempt++) {
    const click = await findClickWithClaim(db, remembered.id);
    if (click) return click.claimed ? undefined : click;
    const left = remembered.at + IN_FLIGHT_MS - Date.now();
    if (left <= 0) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, IN_FLIGHT_POLL_MS[Math.min(attempt, IN_FLIGHT_POLL_MS.length - 1)])));
  }
}

/** First-click programs keep the visitor's earlier click while it has not expired. */
async function earlierClick(db: Db, program: ProgramRow, clickId: string | null | undefined): Promise<Visit | null> {
  if (!clickId) return null;
  const click = await findRecentProgramClick(db, clickId, program.id, new Date(Date.now() - program.cookie_duration * DAY_MS));
  return click
    ? { id: click.id, partnerId: click.partner_id, createdAt: new Date(click.created_at), customerId: await customerOfClick(db, click.id) }
    : null;
}

async function customerOfClick(db: Db, clickId: string): Promise<string | null> {
  return (await findCustomerOfClick(db, clickId))?.id ?? null;
}

export interface Tracked<T> {
  data: T;
  /** What the visitor's referral cookies hold from now on (svc_data). */
  svcData: SvcDataObject;
  /** Seconds until the referral expires: the click time plus the program's cookie duration. */
  maxAge: number;
}

/** What the script's click needs besides SQL. */
export interface ClickTracking {
  store: SharedStore;
  write: ClickWriter;
  programs: ProgramLookup;
  /** Whether clicks from bot User-Agents are ignored (config.botFilter). */
  botFilter: boolean;
}

const secondsLeft = (clickCreatedAt: Date, program: ProgramRow) =>
  Math.max(0, Math.floor((clickCreatedAt.getTime() + program.cookie_duration * DAY_MS - Date.now()) / 1000));

/**
 * The script's click: records the visit (or finds the repeat) and answers the referral the
 * visitor keeps, following the program's attribution model; null for a bot, whose click is not
 * recorded (a wrong key is refused all the same).
 */
export async function trackClick(
  db: Db,
  { store, write, programs, botFilter }: ClickTracking,
  input: TrackClickInput,
  visitor: Visitor,
): Promise<Tracked<SvcDataObject> | null> {
  const program = await programByPublicKey(programs, input.key);
  if (botFilter && isBotVisitor(visitor)) return null;
  const [link] = await resolveLinks(db, store, {
    organizationId: program.organization_id,
    programId: program.id,
    param: input.param,
    value: input.value,
  });
  if (!link) throw linkNotFound();
  const visit = await recordVisit(db, store, write, link, program, input, visitor);
  const kept =
    program.attribution_model === 'first_click' && input.click_id !== visit.id ? await earlierClick(db, program, input.click_id) : null;
  const attributed = kept ?? visit;
  const data = {
    click_id: attributed.id,
    cookie_duration: program.cookie_duration,
    partner_id: attributed.partnerId,
    program_id: program.id,
    customer_id: attributed.customerId,
  };
  return { data, svcData: data, maxAge: secondsLeft(attributed.createdAt, program) };
}

/** The script's signup: the click becomes a lead; a taken identifier → 409 without the existing customer. */
export async function trackSignup(
  db: Db,
  programs: ProgramLookup,
  input: TrackSignupInput,
  visitor: Visitor,
  onEmailQueued?: OnEmailQueued,
): Promise<Tracked<SignupResultObject>> {
  const program = await programByPublicKey(programs, input.key);
  const click = await findProgramClick(db, program.id, input.click_id);
  if (!click) throw notFound('click', input.click_id, 'click_id');
  try {
    const customer = await convertClickToLead(
      db,
      { organizationId: program.organization_id, clickId: click.id, identifier: input.identifier },
      { visitorHash: visitorHash(program.risk_salt, visitor.ip, visitor.userAgent) },
      onEmailQueued,
    );
    return {
      data: {
        click_id: click.id,
        customer_id: customer.id,
        customer_identifier: customer.identifier,
        partner_id: customer.partner_id,
        program_id: customer.program_id,
        message: 'Customer created',
      },
      svcData: {
        click_id: click.id,
        cookie_duration: program.cookie_duration,
        partner_id: customer.partner_id,
        program_id: program.id,
        customer_id: customer.id,
      },
      maxAge: secondsLeft(new Date(click.created_at), program),
    };
  } catch (err) {
    // Browsers may not learn who else signed up: the API's 409 carries the customer, this one does not.
    if (err instanceof ApiError && err.type === 'conflict_error') throw new ApiError('conflict_error', 'Customer already exists');
    throw err;
  }
}
