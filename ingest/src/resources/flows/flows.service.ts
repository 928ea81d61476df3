import type { Db } from '../../db/database.js';
import type { FlowRow } from '../../db/schema.js';
import { badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import { requireGroup } from '../groups/groups.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { forgetFlows } from './flow-cache.js';
import { findFlow, insertFlow, selectFlowList, softDeleteFlow, toEngineFlow, updateFlowById } from './flows.repository.js';
import {
  type ConditionDef,
  DEFAULT_APPROVAL,
  type FlowCreateInput,
  type FlowListInput,
  type FlowObject,
  type FlowTrigger,
  type FlowUpdateInput,
  type RewardDef,
} from './flows.schema.js';
import { toFlow } from './flows.serializer.js';

/** The caller's live flow, or 404. */
export async function requireFlow(db: Db, organizationId: string, id: string): Promise<FlowRow> {
  const found = await findFlow(db, organizationId, id);
  if (!found) throw notFound('flow', id);
  return found;
}

/** A page of the program's flows. */
export async function listFlows(db: Db, organizationId: string, query: FlowListInput): Promise<Page<FlowObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filters = { programId: program.id, groupId: query.group_id, trigger: query.trigger, active: query.active };
  const page = await paginate(selectFlowList(db, organizationId, filters), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: page.rows.map(toFlow) };
}

/**
 * A signup has no payment: its reward is a fixed amount, and its conditions can only look at
 * the partner. Checked on the flow as it will be stored, so an update cannot break it either.
 */
function checkSignupFlow(flow: { trigger: FlowTrigger; conditions: ConditionDef[]; reward: RewardDef }): void {
  if (flow.trigger !== 'signup') return;
  if (flow.reward.type !== 'fixed')
    throw badRequest('A signup flow has no payment to take a percentage of: use a fixed reward', 'reward.type');
  if (flow.reward.product_rates?.length)
    throw badRequest('A signup flow has no product: product_rates do not apply', 'reward.product_rates');
  const i = flow.conditions.findIndex((c) => !c.subject.startsWith('partner.'));
  if (i >= 0) throw badRequest('A signup flow can only have partner.* conditions', `conditions.${i}.subject`);
}

export async function createFlow(db: Db, store: SharedStore, organizationId: string, input: FlowCreateInput): Promise<FlowRow> {
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  if (input.group_id) await requireGroup(db, organizationId, input.group_id, { programId: program.id, param: 'group_id' });
  const flow = { trigger: input.trigger ?? 'payment', conditions: input.conditions ?? [], reward: input.reward };
  checkSignupFlow(flow);
  const now = new Date();
  const created = await insertFlow(db, {
    id: newId('flow'),
    organization_id: organizationId,
    program_id: program.id,
    group_id: input.group_id ?? null,
    name: input.name,
    trigger: flow.trigger,
    conditions: JSON.stringify(flow.conditions),
    reward: JSON.stringify(flow.reward),
    approval: JSON.stringify(input.approval ?? DEFAULT_APPROVAL),
    active: input.active ?? true,
    is_default: false,
    created_at: now,
    updated_at: now,
  });
  await forgetFlows(store, program.id);
  return created;
}

/** Changes apply to events from now on; commissions already created keep their terms. */
export async function updateFlow(db: Db, store: SharedStore, organizationId: string, id: string, input: FlowUpdateInput): Promise<FlowRow> {
  const current = await requireFlow(db, organizationId, id);
  if (input.group_id) await requireGroup(db, organizationId, input.group_id, { programId: current.program_id, param: 'group_id' });
  const stored = toEngineFlow(current);
  checkSignupFlow({
    trigger: input.trigger ?? stored.trigger,
    conditions: input.conditions ?? stored.conditions,
    reward: input.reward ?? stored.reward,
  });
  const { conditions, reward, approval, ...plain } = input;
  const updated = await updateFlowById(db, current.id, {
    ...plain,
    ...(conditions ? { conditions: JSON.stringify(conditions) } : {}),
    ...(reward ? { reward: JSON.stringify(reward) } : {}),
    ...(approval ? { approval: JSON.stringify(approval) } : {}),
  });
  if (!updated) throw notFound('flow', id);
  await forgetFlows(store, current.program_id);
  return updated;
}

/** Soft delete: the flow stops creating commissions; the commissions it created keep its id. */
export async function deleteFlow(db: Db, store: SharedStore, organizationId: string, id: string): Promise<void> {
  const flow = await requireFlow(db, organizationId, id);
  await softDeleteFlow(db, flow.id);
  await forgetFlows(store, flow.program_id);
}
