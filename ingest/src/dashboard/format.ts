import { minorUnitDigits } from '../resources/commissions/cents.js';

/** How the dashboard shows amounts (minor units of a currency) and times: in English, times in UTC like the stats' days. */
export function money(cents: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    cents / 10 ** digits,
  );
}

/** Several currencies' amounts, e.g. "$49.00 · €10.00"; "—" when there is none. */
export function moneyList(amounts: Record<string, number>, fallbackCurrency: string): string {
  const entries = Object.entries(amounts).filter(([, v]) => v !== 0);
  if (entries.length === 0) return money(0, fallbackCurrency);
  return entries.map(([currency, cents]) => money(cents, currency)).join(' · ');
}

/** Cents as the major-unit text a form field shows and reads back ("49.00"; "500" for yen). */
export function majorUnits(cents: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  return (cents / 10 ** digits).toFixed(digits);
}

/** How a partner is named on every page: their name, else their e-mail. */
export const partnerName = (p: { first_name: string; last_name: string; email: string }) =>
  `${p.first_name} ${p.last_name}`.trim() || p.email;

export const count = (n: number) => new Intl.NumberFormat('en').format(n);

export const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
export const time = (d: Date | string) => `${new Date(d).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The change against the previous period, as "+12%" / "−5%"; null when there was nothing before. */
export function change(now: number, before: number): string | null {
  if (before === 0) return null;
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct)}%`;
}

/** Major units typed in a form ("49", "49.5", "1,234.56") → minor units, or null when not an amount. */
export function parseAmount(text: string, currency: string): number | null {
  const cleaned = text.trim().replace(/,/g, '');
  const digits = minorUnitDigits(currency);
  if (!/^\d{1,12}(\.\d+)?$/.test(cleaned)) return null;
  const [whole, fraction = ''] = cleaned.split('.');
  if (fraction.length > digits) return null;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}
