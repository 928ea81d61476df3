import type { Db } from '../../db/database.js';
import type { StripeIntegrationRow } from '../../db/schema.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { requireProgram } from '../programs/programs.service.js';
import {
  deleteIntegration,
  findIntegration,
  forgetWaitingPayloads,
  selectStripeEventList,
  summarizeEvents,
  upsertIntegration,
} from './stripe.repository.js';
import type { StripeConnectInput, StripeEventListInput, StripeEventObject, StripeIntegrationObject } from './stripe.schema.js';
import { toStripeEvent, toStripeIntegration } from './stripe.serializer.js';

/** The path Stripe posts a program's events to. */
export const webhookPath = (programId: string) => `/v1/integrations/stripe/webhook/${programId}`;

async function present(
  db: Db,
  programId: string,
  integration: StripeIntegrationRow | undefined,
  publicUrl: string,
): Promise<StripeIntegrationObject> {
  return toStripeIntegration(programId, integration, await summarizeEvents(db, programId), `${publicUrl}${webhookPath(programId)}`);
}

export async function retrieveStripeIntegration(db: Db, organizationId: string, programId: string, publicUrl: string) {
  const program = await requireProgram(db, organizationId, programId);
  return present(db, program.id, await findIntegration(db, organizationId, program.id), publicUrl);
}

/** Connects with a signing secret, or changes the options of a connection (the secret may then be left out). */
export async function connectStripe(db: Db, organizationId: string, programId: string, input: StripeConnectInput, publicUrl: string) {
  const program = await requireProgram(db, organizationId, programId);
  const current = await findIntegration(db, organizationId, program.id);
  const secret = input.webhook_secret ?? current?.webhook_secret;
  if (!secret) throw badRequest('webhook_secret is required to connect Stripe', 'webhook_secret');
  const integration = await upsertIntegration(
    db,
    {
      program_id: program.id,
      organization_id: organizationId,
      webhook_secret: secret,
      tax_counts_as_revenue: input.tax_counts_as_revenue ?? current?.tax_counts_as_revenue ?? false,
    },
    new Date(),
  );
  return present(db, program.id, integration, publicUrl);
}

export async function disconnectStripe(db: Db, organizationId: string, programId: string): Promise<void> {
  const program = await requireProgram(db, organizationId, programId);
  if (!(await findIntegration(db, organizationId, program.id))) {
    throw new ApiError('not_found_error', `Stripe is not connected to program '${program.id}'`);
  }
  await deleteIntegration(db, program.id);
}

/** A page of the program's Stripe events, newest first by default. */
export async function listStripeEvents(
  db: Db,
  organizationId: string,
  programId: string,
  query: StripeEventListInput,
): Promise<Page<StripeEventObject>> {
  const program = await requireProgram(db, organizationId, programId);
  const filtered = selectStripeEventList(db, { programId: program.id, status: query.status, type: query.type });
  const page = await paginate(filtered, query, { createdAt: 'received_at', id: 'event_id' });
  return { ...page, rows: page.rows.map(toStripeEvent) };
}

/**
 * How long an event waits for the Stripe customer or payment it names: as long as Stripe
 * retries a delivery (three days), so an event that arrived before the one it needs still
 * finds it. After that its payload (which holds the Stripe customer's e-mail and name, also of
 * customers nobody referred) is let go; its record stays, as ignored.
 */
export const WAITING_DAYS = 3;

export function forgetStaleWaitingEvents(db: Db, now = new Date()): Promise<number> {
  return forgetWaitingPayloads(db, new Date(now.getTime() - WAITING_DAYS * 86_400_000));
}
