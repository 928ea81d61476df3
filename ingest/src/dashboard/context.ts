import type { Response } from 'express';
import type { ProgramObject } from '../resources/programs/programs.schema.js';
import type { SignedInUser } from '../resources/users/users.service.js';

/**
 * What a dashboard page is given. Pages import these types from here, never from the router
 * that registers them, so that no page module imports its own importer (ingest/README.md#how-to-add-a-dashboard-or-portal-page).
 */

export type Section =
  | 'overview'
  | 'partners'
  | 'customers'
  | 'transactions'
  | 'commissions'
  | 'payouts'
  | 'risk'
  | 'settings'
  | 'integrations';

/** What every signed-in page knows: who is looking, their programs, which one and which section. */
export interface PageContext {
  user: SignedInUser;
  programs: ProgramObject[];
  /** The program in the URL; on a page of the organization (integrations), the first program, if any. */
  program: ProgramObject | null;
  section: Section | null;
  /** A one-line confirmation of what the last form did. */
  notice?: string | null;
  /** svc's public address, SVC_PUBLIC_URL (where the script tag loads svc.js from); never the request's Host. */
  publicUrl: string;
  /** How many partners of each program wait for review, for the navigation's count. */
  pendingPartners?: ReadonlyMap<string, number>;
  /** How many open risk events the program of the URL has, for the navigation's count (ingest/docs/dashboard.md#risk). */
  openRiskEvents?: number;
}

/** A page of one program (`/dashboard/programs/:programId/…`): its program is always there. */
export interface ProgramPageContext extends PageContext {
  program: ProgramObject;
}

/**
 * The signed-in page's context. Given a program id, the program of the URL (404 when it is not the
 * user's organization's); without one, a page of the organization.
 */
export interface ContextOf {
  (res: Response, section: Section | null, programId: string): Promise<ProgramPageContext>;
  (res: Response, section: Section | null): Promise<PageContext>;
}

export const programPath = (program: { id: string }, rest = '') => `/dashboard/programs/${program.id}${rest}`;
