/**
 * Money rules shared by the commission engine and the refund planner: whole cents, exact
 * integer arithmetic, and which commissions count.
 */

/** numerator / denominator rounded half up, in exact integers; denominator > 0. */
export function roundHalfUp(numerator: bigint, denominator: bigint): number {
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/**
 * Commissions in these statuses count toward no total (partner and customer stats, what a
 * refund claws back). Migration 0004's partner_stats trigger holds the same set in its SQL.
 */
export const UNCOUNTED_STATUSES = ['rejected', 'refunded'] as const;

export const countsTowardsTotals = (c: { status: string }): boolean => !(UNCOUNTED_STATUSES as readonly string[]).includes(c.status);

/**
 * The digits of a currency's minor unit (2 for USD, 0 for JPY, 3 for KWD): amounts are integers
 * of that unit everywhere in svc ("cents"), and shown or exported in the major unit.
 */
export function minorUnitDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
