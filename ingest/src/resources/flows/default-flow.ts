/** The flow every new program starts with: 20 % of every payment, approved after 30 days. */
export const DEFAULT_FLOW = {
  name: 'Default: 20% of every payment',
  trigger: 'payment',
  conditions: [] as unknown[],
  reward: { type: 'percentage', value: 20 },
  approval: { type: 'scheduled', delay_days: 30 },
} as const;
