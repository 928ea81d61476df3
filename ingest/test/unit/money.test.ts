import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMoney, minorUnitDigits, parseMajorUnits, proportionalShare, roundHalfUp, toMajorUnits } from '../../src/money.js';

describe('money', () => {
  it('knows each currency minor unit, and takes 2 for a code Intl does not know', () => {
    expect([minorUnitDigits('USD'), minorUnitDigits('JPY'), minorUnitDigits('KWD'), minorUnitDigits('XYZ1')]).toEqual([2, 0, 3, 2]);
  });

  it('writes minor units as an exact decimal, also where a float would not be exact', () => {
    expect(toMajorUnits(123456, 'USD')).toBe('1234.56');
    expect(toMajorUnits(-150, 'USD')).toBe('-1.50');
    expect(toMajorUnits(5, 'USD')).toBe('0.05');
    expect(toMajorUnits(500, 'JPY')).toBe('500');
    expect(toMajorUnits(1234, 'KWD')).toBe('1.234');
    // 2^53 − 1 cents: dividing by 100 as a float gives 90071992547409.91
    expect(toMajorUnits(9007199254740991, 'USD')).toBe('90071992547409.91');
  });

  it('formats money for people from the exact decimal', () => {
    expect(formatMoney(4900, 'USD')).toBe('$49.00');
    expect(formatMoney(500, 'JPY')).toBe('¥500');
    expect(formatMoney(-1050, 'EUR')).toBe('-€10.50');
    expect(formatMoney(9007199254740991, 'USD')).toBe('$90,071,992,547,409.91');
    expect(formatMoney(4900, 'XYZ1')).toBe('49.00 XYZ1');
  });

  it('reads what a form field shows back to the same minor units, and refuses what is not an amount', () => {
    expect(parseMajorUnits('49', 'USD')).toBe(4900);
    expect(parseMajorUnits(' 1,234.5 ', 'USD')).toBe(123450);
    expect(parseMajorUnits('500', 'JPY')).toBe(500);
    for (const cents of [0, 1, 99, 4900, 123456]) expect(parseMajorUnits(toMajorUnits(cents, 'USD'), 'USD')).toBe(cents);
    for (const bad of ['', '1.234', '-5', '1e3', 'abc', '5.', '1234567890123']) expect(parseMajorUnits(bad, 'USD'), bad).toBeNull();
    expect(parseMajorUnits('5.5', 'JPY')).toBeNull();
  });

  it('rounds shares half up in exact integers', () => {
    expect(roundHalfUp(5n, 2n)).toBe(3);
    expect(roundHalfUp(4n, 3n)).toBe(1);
    expect(proportionalShare(1000, 1, 3)).toBe(333);
    expect(proportionalShare(1000, 2, 3)).toBe(667);
    expect(proportionalShare(980, 1000, 4900)).toBe(200);
  });

  // Property tests: the same laws for a currency without a minor unit (JPY), with two (USD) and
  // with three (KWD), over every amount a form may hold (up to 12 whole digits).
  const currencies = fc.constantFrom('JPY', 'USD', 'KWD');
  const typedAmount = (currency: string) => fc.integer({ min: 0, max: 10 ** (12 + minorUnitDigits(currency)) - 1 });

  it('reads back what it writes, for zero-, two- and three-decimal currencies', () => {
    fc.assert(
      fc.property(
        currencies.chain((c) => fc.tuple(fc.constant(c), typedAmount(c))),
        ([currency, minor]) => parseMajorUnits(toMajorUnits(minor, currency), currency) === minor,
      ),
    );
  });

  it('formats the same figure it writes, grouped, with the currency’s own number of decimals', () => {
    fc.assert(
      fc.property(
        currencies.chain((c) => fc.tuple(fc.constant(c), fc.integer({ min: -(10 ** 15), max: 10 ** 15 }))),
        ([currency, minor]) => {
          const shown = formatMoney(minor, currency);
          const figure = shown.replace(/[^\d.-]/g, '');
          const decimals = figure.includes('.') ? figure.split('.')[1].length : 0;
          return figure === toMajorUnits(minor, currency) && decimals === minorUnitDigits(currency);
        },
      ),
    );
  });

  it('splits an amount into shares that are each within half a minor unit of the exact share', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 1, max: 10 ** 6 }), fc.nat(), (amount, whole, p) => {
        const part = p % (whole + 1);
        const share = proportionalShare(amount, part, whole);
        // |share − amount·part/whole| ≤ ½, in integers: |2·share·whole − 2·amount·part| ≤ whole.
        const error = 2n * BigInt(share) * BigInt(whole) - 2n * BigInt(amount) * BigInt(part);
        return (error < 0n ? -error : error) <= BigInt(whole) && (part === whole ? share === amount : true);
      }),
    );
  });
});
