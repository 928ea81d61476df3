import { z } from 'zod';
import type { ProgramRow } from '../../db/schema.js';

/**
 * The fraud and risk rules (ingest/docs/risk.md): each is on or off per program, some with a
 * threshold. A program stores only what it changed (`programs.risk_rules`); the defaults are
 * here, so a new default reaches every program that kept it.
 */
export const RISK_RULES = [
  'self_referral',
  'shared_payout_account',
  'disposable_email',
  'paid_ad_traffic',
  'banned_referral_source',
  'click_flooding',
  'refund_rate',
] as const;
export type RiskRule = (typeof RISK_RULES)[number];

/** A referrer host as a program lists it: a host name, lower case, no scheme or path. */
const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(253)
  .regex(
    /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
    'a host name such as example.com, without scheme or path',
  );

const enabled = (description: string) => z.boolean().meta({ description });

/** Each rule's fields. */
const RULE_FIELDS = {
  self_referral: {
    enabled: enabled(
      "A customer whose e-mail is the partner's e-mail or payout e-mail (case, spaces, +tags and Gmail dots aside), or who came from the browser of the partner's own portal session",
    ),
  },
  shared_payout_account: { enabled: enabled('Two live partners of the program paid into the same PayPal or Wise e-mail or bank account') },
  disposable_email: { enabled: enabled("A customer whose e-mail's domain is a disposable e-mail provider's") },
  paid_ad_traffic: {
    enabled: enabled('A customer whose click landed from a paid ad (its URL carried gclid, fbclid, msclkid or another ad click id)'),
  },
  banned_referral_source: {
    enabled: enabled("A customer whose click's referrer is one of `hosts` (or a subdomain of one)"),
    hosts: z.array(hostName).max(200).meta({ description: 'Referrer hosts the program bans, e.g. `coupons.example`' }),
  },
  click_flooding: {
    enabled: enabled("More than `max_clicks_per_hour` clicks on one partner's links from one browser within an hour"),
    max_clicks_per_hour: z.number().int().min(1).max(100_000),
  },
  refund_rate: {
    enabled: enabled(
      'A partner whose refunded revenue over the last 60 days is above `max_percent` of their revenue, once they have `min_payments` payments in that time',
    ),
    max_percent: z.number().min(0).max(100),
    min_payments: z.number().int().min(1).max(100_000),
  },
} as const satisfies Record<RiskRule, z.ZodRawShape>;

/** Every rule with its settings. */
export const RiskRuleSettings = z
  .strictObject({
    self_referral: z.strictObject(RULE_FIELDS.self_referral),
    shared_payout_account: z.strictObject(RULE_FIELDS.shared_payout_account),
    disposable_email: z.strictObject(RULE_FIELDS.disposable_email),
    paid_ad_traffic: z.strictObject(RULE_FIELDS.paid_ad_traffic),
    banned_referral_source: z.strictObject(RULE_FIELDS.banned_referral_source),
    click_flooding: z.strictObject(RULE_FIELDS.click_flooding),
    refund_rate: z.strictObject(RULE_FIELDS.refund_rate),
  })
  .meta({ id: 'RiskRules' });
export type RiskRuleSettings = z.output<typeof RiskRuleSettings>;

/** What a program that changed nothing has. */
export const DEFAULT_RISK_RULES: RiskRuleSettings = {
  self_referral: { enabled: true },
  shared_payout_account: { enabled: true },
  disposable_email: { enabled: true },
  paid_ad_traffic: { enabled: false },
  banned_referral_source: { enabled: false, hosts: [] },
  click_flooding: { enabled: true, max_clicks_per_hour: 20 },
  refund_rate: { enabled: true, max_percent: 30, min_payments: 5 },
};

/** A change of some rules' settings: each rule's given fields replace the program's. */
export const RiskRuleChanges = z
  .strictObject({
    self_referral: z.strictObject(RULE_FIELDS.self_referral).partial().optional(),
    shared_payout_account: z.strictObject(RULE_FIELDS.shared_payout_account).partial().optional(),
    disposable_email: z.strictObject(RULE_FIELDS.disposable_email).partial().optional(),
    paid_ad_traffic: z.strictObject(RULE_FIELDS.paid_ad_traffic).partial().optional(),
    banned_referral_source: z.strictObject(RULE_FIELDS.banned_referral_source).partial().optional(),
    click_flooding: z.strictObject(RULE_FIELDS.click_flooding).partial().optional(),
    refund_rate: z.strictObject(RULE_FIELDS.refund_rate).partial().optional(),
  })
  .meta({ id: 'RiskRuleChanges' });
export type RiskRuleChanges = z.output<typeof RiskRuleChanges>;

/** The rules of a program: its stored choices over the defaults, field by field; a stored value that no longer reads keeps the default. */
export function rulesOf(program: Pick<ProgramRow, 'risk_rules'>): RiskRuleSettings {
  const stored = (program.risk_rules ?? {}) as Partial<Record<string, Record<string, unknown>>>;
  const rules = structuredClone(DEFAULT_RISK_RULES) as Record<RiskRule, Record<string, unknown>>;
  for (const rule of RISK_RULES) {
    for (const [field, schema] of Object.entries(RULE_FIELDS[rule]) as [string, z.ZodType][]) {
      const parsed = schema.safeParse(stored[rule]?.[field]);
      if (parsed.success) rules[rule][field] = parsed.data;
    }
  }
  return rules as RiskRuleSettings;
}

/** The settings after a change: what the program stores from now on. */
export function changedRules(current: RiskRuleSettings, changes: RiskRuleChanges): RiskRuleSettings {
  const next = { ...current } as Record<string, unknown>;
  for (const rule of RISK_RULES) {
    const change = changes[rule];
    if (change) next[rule] = { ...current[rule], ...change };
  }
  return next as RiskRuleSettings;
}
