import { formatMoney } from '../money.js';

// How the dashboard and the portal show figures and times: in English, times in UTC like the
// stats' days. Amounts are formatted and read by ingest/src/money.ts.

/** Several currencies' amounts, e.g. "$49.00 · €10.00"; "—" when there is none. */
export function moneyList(amounts: Record<string, number>, fallbackCurrency: string): string {
  const entries = Object.entries(amounts).filter(([, v]) => v !== 0);
  if (entries.length === 0) return formatMoney(0, fallbackCurrency);
  return entries.map(([currency, cents]) => formatMoney(cents, currency)).join(' · ');
}

/** How a partner is named on every page (and in activity lines and e-mails). */
export { partnerName } from '../resources/partners/partner-name.js';

/** How a customer is named on every page: their e-mail, else their name, else their id. */
export const customerLabel = (c: { email: string | null; name: string | null; id: string }) => c.email ?? c.name ?? c.id;

export const count = (n: number) => new Intl.NumberFormat('en').format(n);

export const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
export const time = (d: Date | string) => `${new Date(d).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The change against the previous period, as "+12%" / "−5%"; null when there was nothing before. */
export function change(now: number, before: number): string | null {
  if (before === 0) return null;
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct)}%`;
}
