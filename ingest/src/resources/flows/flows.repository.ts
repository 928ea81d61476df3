import type { Db } from '../../db/database.js';
import type { FlowRow } from '../../db/schema.js';
import type { EngineFlow } from '../commissions/engine.js';
import type { FlowTrigger } from './flows.schema.js';

export function selectFlows(db: Db, organizationId: string) {
  return db.selectFrom('flows').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findFlow(db: Db, organizationId: string, id: string): Promise<FlowRow | undefined> {
  return selectFlows(db, organizationId).where('id', '=', id).executeTakeFirst();
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
