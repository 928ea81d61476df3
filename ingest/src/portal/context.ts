import type { Response } from 'express';
import { ApiError } from '../http/errors.js';
import type { PortalSession } from './portal-auth.js';

/**
 * What a portal page is given. Pages import these from here, never from the router that registers
 * them (ingest/README.md#how-to-add-a-dashboard-or-portal-page).
 */

export type PortalSection = 'home' | 'referrals' | 'settings';

/** What a signed-in portal page is given: the session, the section and a confirmation of the last form. */
export interface PortalContext extends PortalSession {
  section: PortalSection | null;
  notice?: string | null;
}

/** The signed-in pages' context: the session, the section and the notice of the last form. */
export type PortalContextOf = (res: Response, section: PortalSection | null) => PortalContext;

/** The same 404 for a program, a page or a record that does not exist and for one that is not the partner's. */
export function notFoundPage(): ApiError {
  return new ApiError('not_found_error', 'There is no such page in this partner portal.');
}
