import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { FlowRow, FlowsTable } from '../../db/schema.js';
import type { EngineFlow } from '../commissions/engine.js';
import type { FlowTrigger } from './flows.schema.js';

export function selectFlows(db: Db, organizationId: string) {
  return db.selectFrom('flows').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findFlow(db: Db, organizationId: string, id: string): Promise<FlowRow | undefined> {
  return selectFlows(db, organizationId).where('id', '=', id).executeTakeFirst();
}

export interface FlowListFilters {
  programId: string;
  groupId?: string;
  trigger?: FlowTrigger;
  active?: boolean;
}

/** The list of a program's live flows, narrowed by the list's filters (paginated by the caller). */
export function selectFlowList(db: Db, organizationId: string, filters: FlowListFilters) {
  let query = selectFlows(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.groupId) query = query.where('group_id', '=', filters.groupId);
  if (filters.trigger) query = query.where('trigger', '=', filters.trigger);
  if (filters.active !== undefined) query = query.where('active', '=', filters.active);
  return query;
}

/** The program's active flows (of one trigger, when given), oldest first, as the engine reads them. */
export async function activeFlows(db: Db, programId: string, trigger?: FlowTrigger): Promise<EngineFlow[]> {
  let query = db
    .selectFrom('flows')
    .selectAll()
    .where('program_id', '=', programId)
    .where('active', '=', true)
    .where('deleted_at', 'is', null);
  if (trigger) query = query.where('trigger', '=', trigger);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  return rows.map(toEngineFlow);
}

export function toEngineFlow(row: FlowRow): EngineFlow {
  return {
    id: row.id,
    group_id: row.group_id,
    trigger: row.trigger as FlowTrigger,
    active: row.active,
    conditions: row.conditions as EngineFlow['conditions'],
    reward: row.reward as EngineFlow['reward'],
    approval: row.approval as EngineFlow['approval'],
  };
}

export function insertFlow(db: Db, flow: Insertable<FlowsTable>): Promise<FlowRow> {
  return db.insertInto('flows').values(flow).returningAll().executeTakeFirstOrThrow();
}

/** Changes a flow (JSON columns given as JSON text); undefined when there is no such flow. */
export function updateFlowById(
  db: Db,
  id: string,
  changes: Omit<Updateable<FlowsTable>, 'id' | 'updated_at' | 'deleted_at'>,
): Promise<FlowRow | undefined> {
  return db
    .updateTable('flows')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function softDeleteFlow(db: Db, id: string): Promise<void> {
  const now = new Date();
  await db.updateTable('flows').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
}
