import type { AppDeps } from '../deps.js';
import { requireProgramPartner } from '../resources/partners/partners.service.js';
import type { ProgramPageContext } from './context.js';

/** A partner id in a list's filter must be one of the program's: another program's or organization's is a 404. */
export async function checkPartnerFilter(deps: AppDeps, ctx: ProgramPageContext, partnerId: string | undefined): Promise<void> {
  if (!partnerId) return;
  await requireProgramPartner(deps.db, ctx.user.organization_id, ctx.program.id, partnerId);
}
