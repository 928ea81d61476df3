/** Which commissions count toward totals (the money rules themselves are in ingest/src/money.ts). */

/**
 * Commissions in these statuses count toward no total (partner and customer stats, what a
 * refund claws back). Migration 0004's partner_stats trigger holds the same set in its SQL.
 */
export const UNCOUNTED_STATUSES = ['rejected', 'refunded'] as const;

export const countsTowardsTotals = (c: { status: string }): boolean => !(UNCOUNTED_STATUSES as readonly string[]).includes(c.status);
