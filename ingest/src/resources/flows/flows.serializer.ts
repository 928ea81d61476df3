import type { FlowRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import { toEngineFlow } from './flows.repository.js';
import type { FlowObject } from './flows.schema.js';

export function toFlow(row: FlowRow): FlowObject {
  const { trigger, conditions, reward, approval } = toEngineFlow(row);
  return {
    id: row.id,
    name: row.name,
    trigger,
    conditions,
    reward,
    approval,
    active: row.active,
    default: row.is_default,
    group_id: row.group_id,
    program_id: row.program_id,
    organization_id: row.organization_id,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
