import type { RiskEventRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import type { RiskEventObject } from './risk.schema.js';

export type HeldMoney = RiskEventObject['held'];

export function toRiskEvent(e: RiskEventRow, held: HeldMoney = []): RiskEventObject {
  return {
    id: e.id,
    rule: e.rule as RiskEventObject['rule'],
    status: e.status,
    partner_id: e.partner_id,
    program_id: e.program_id,
    organization_id: e.organization_id,
    click_id: e.click_id,
    customer_id: e.customer_id,
    transaction_id: e.transaction_id,
    other_partner_id: e.other_partner_id,
    fingerprint: e.visitor_hash,
    holds: e.holds,
    evidence: e.evidence as unknown as Record<string, unknown>,
    held,
    resolution: e.resolution as RiskEventObject['resolution'],
    resolution_reason: e.resolution_reason,
    resolved_at: e.resolved_at ? toIso(e.resolved_at) : null,
    created_at: toIso(e.created_at),
    updated_at: toIso(e.updated_at),
  };
}
