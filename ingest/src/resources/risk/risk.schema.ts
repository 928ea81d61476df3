import { z } from 'zod';
import { idField, isoString, optionalText } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';
import { RISK_RULES } from './risk-rules.js';

export const RISK_EVENT_STATUSES = ['open', 'resolved'] as const;
export const RISK_RESOLUTIONS = ['dismiss', 'reject_commissions', 'ban_partner'] as const;
export type RiskResolution = (typeof RISK_RESOLUTIONS)[number];

export const RiskEventListQuery = listQuery({
  program_id: idField.optional(),
  partner_id: idField.optional(),
  rule: z.enum(RISK_RULES).optional(),
  status: z.enum(RISK_EVENT_STATUSES).optional(),
});
export type RiskEventListInput = z.output<typeof RiskEventListQuery>;

export const RiskResolve = z
  .strictObject({
    action: z.enum(RISK_RESOLUTIONS).meta({
      description:
        '`dismiss`: the event stops holding money; `reject_commissions`: the commissions it holds are rejected with `reason`; `ban_partner`: the partner is suspended with `reason` and their pending commissions rejected with it',
    }),
    reason: optionalText(1000)
      .optional()
      .meta({ description: 'Required to reject or ban: the partner sees it (as the rejection reason and the suspension reason)' }),
  })
  .meta({ id: 'RiskResolve' });
export type RiskResolveInput = z.output<typeof RiskResolve>;

const HeldMoney = z.object({
  currency: z.string(),
  amount: z.number().int().meta({ description: 'Minor units held' }),
  commissions: z.number().int(),
});

export const RiskEvent = z
  .object({
    id: z.string(),
    rule: z.enum(RISK_RULES),
    status: z.enum(RISK_EVENT_STATUSES),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    click_id: z.string().nullable(),
    customer_id: z.string().nullable(),
    transaction_id: z.string().nullable(),
    other_partner_id: z.string().nullable().meta({ description: 'The partner who shares the payout account (shared_payout_account)' }),
    fingerprint: z
      .string()
      .nullable()
      .meta({ description: "The browser's fingerprint, an HMAC of client address and User-Agent; never the address" }),
    holds: z.enum(['customer', 'visitor', 'partner']).meta({
      description:
        "Whose commissions it holds while open: its customer's, those of the customers from its fingerprint, or all the partner's",
    }),
    evidence: z.record(z.string(), z.unknown()).meta({ description: 'What matched, per rule (ingest/docs/risk.md#the-rules)' }),
    held: z.array(HeldMoney).meta({ description: 'What it holds now, per currency (empty once resolved)' }),
    resolution: z.enum(RISK_RESOLUTIONS).nullable(),
    resolution_reason: z.string().nullable(),
    resolved_at: isoString.nullable(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'RiskEvent' });
export type RiskEventObject = z.output<typeof RiskEvent>;

/** The operations' descriptions in the OpenAPI document. */
export const riskDocs = {
  list: 'Beyond the spec. The organization’s risk events (ingest/docs/risk.md), newest first by default; filter by `program_id`, `partner_id`, `rule` and `status`. An open event holds the commissions it concerns: the approval job and payout generation leave them until it is resolved.',
  retrieve: 'Beyond the spec.',
  resolve:
    'Beyond the spec. One SQL transaction: `dismiss` releases what the event holds; `reject_commissions` rejects the reward commissions it holds that are in no payout (their refund entries with them), with `reason` as their rejection reason; `ban_partner` suspends the partner with `reason`, rejects their pending commissions and the ones the event holds, and resolves every open event of the partner. An event already resolved → 409. Emits `risk_event.resolved` (and the commissions’ and partner’s own events).',
  rules: 'Beyond the spec. The program’s fraud and risk rules, every field (ingest/docs/risk.md#the-rules).',
  changeRules:
    'Beyond the spec. Changes some of the program’s rules: each rule’s given fields replace the program’s, the rest keep their values. Answers every rule.',
} as const;
