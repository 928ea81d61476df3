/**
 * Money, in one place: amounts are integers of a currency's minor unit everywhere in svc
 * ("cents": 4900 USD is $49.00, 500 JPY is ¥500), computed with exact integer arithmetic, and
 * turned into text or read back from text only here, for the API's figures, the pages, the
 * e-mails and the payout files alike.
 */

/** numerator / denominator rounded half up, in exact integers; denominator > 0. */
export function roundHalfUp(numerator: bigint, denominator: bigint): number {
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/** `amount` × part / whole, rounded half up, exactly: the share of a refund or a payment that falls to one part. */
export const proportionalShare = (amount: number, part: number, whole: number): number =>
  roundHalfUp(BigInt(amount) * BigInt(part), BigInt(whole));

/** The digits of a currency's minor unit (2 for USD, 0 for JPY, 3 for KWD); 2 for a code Intl does not know. */
export function minorUnitDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Minor units as an exact decimal in the major unit: 123456 USD → "1234.56", 500 JPY → "500", -150 USD → "-1.50". */
export function toMajorUnits(minor: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const scale = 10 ** digits;
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(digits, '0')}`;
}

/**
 * Minor units as money for people, in English: 4900 USD → "$49.00", 500 JPY → "¥500". Intl formats
 * the exact decimal (a string), never a float; a code Intl does not know shows as "49.00 XYZ".
 */
export function formatMoney(minor: number, currency: string): string {
  const decimal = toMajorUnits(minor, currency) as `${number}`;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(decimal);
  } catch {
    return `${decimal} ${currency}`;
  }
}

/** Major units as typed in a form ("49", "49.5", "1,234.56") → minor units, or null when not an amount of that currency. */
export function parseMajorUnits(text: string, currency: string): number | null {
  const cleaned = text.trim().replace(/,/g, '');
  const digits = minorUnitDigits(currency);
  if (!/^\d{1,12}(\.\d+)?$/.test(cleaned)) return null;
  const [whole, fraction = ''] = cleaned.split('.');
  if (fraction.length > digits) return null;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}
