import countries from 'i18n-iso-countries';
import { z } from 'zod';

/** Reusable field schemas, so each rule (length caps, formats, enums) lives in one place. */

export const idField = z.string().min(1).max(64);
export const shortText = (max = 200) => z.string().trim().min(1).max(max);
export const optionalText = (max = 2000) => z.string().trim().max(max).nullable();

export const emailField = z.email().max(254);

export const countryCode = z
  .string()
  .length(2)
  .transform((v) => v.toUpperCase())
  .refine((v) => countries.isValid(v), 'not an ISO 3166-1 alpha-2 country code')
  .meta({ description: 'ISO 3166-1 alpha-2 country code', example: 'US' });

const currencies = new Set(Intl.supportedValuesOf('currency'));
export const currencyCode = z
  .string()
  .length(3)
  .transform((v) => v.toUpperCase())
  .refine((v) => currencies.has(v), 'not an ISO 4217 currency code')
  .meta({ description: 'ISO 4217 currency code', example: 'USD' });

const isoTimestamp = z.iso.datetime({ offset: true }).transform((v) => new Date(v));

/** A refinement keeping a parsed timestamp within [first, last], both inclusive, ISO 8601 in UTC. */
const within = (first: string, last: string) =>
  [(d: Date) => d.getTime() >= Date.parse(first) && d.getTime() <= Date.parse(last), `must be between ${first} and ${last}`] as const;

/**
 * ISO 8601 timestamp with an offset or Z, turned into a Date (list filters). Its UTC year must
 * have four digits: an offset can carry a valid local time outside them
 * (`0001-01-01T00:00:00+01:00` is year 0 in UTC, `9999-12-31T23:00:00-02:00` year 10000),
 * which the embedded database refuses in SQL.
 */
export const timestampField = isoTimestamp
  .refine(...within('0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'))
  .meta({ description: 'ISO 8601 timestamp', example: '2026-01-31T12:00:00.000Z' });

/**
 * A timestamp the service stores (when a payment or a signup happened). Narrower: the embedded
 * database's driver reads years below 100 back as 19xx or 20xx, and a date derived from a stored
 * one (a commission approved up to 3650 days later) must still have a four-digit year.
 */
export const storedTimestampField = isoTimestamp
  .refine(...within('1000-01-01T00:00:00.000Z', '8999-12-31T23:59:59.999Z'))
  .meta({ description: 'ISO 8601 timestamp, years 1000–8999', example: '2026-01-31T12:00:00.000Z' });

export const urlField = z.url({ protocol: /^https?$/ }).max(2048);

export const PAYOUT_METHODS = ['paypal', 'crypto', 'wise', 'bank_transfer', 'wire', 'none'] as const;
export const payoutMethod = z.enum(PAYOUT_METHODS);

/** Response timestamps: ISO 8601 UTC with milliseconds. */
export const isoString = z.iso.datetime().meta({ example: '2026-01-31T12:00:00.000Z' });
export const toIso = (d: Date | string) => new Date(d).toISOString();
export const toIsoOrNull = (d: Date | string | null) => (d === null ? null : toIso(d));

/** Money: integer cents, never negative, capped far below 2^53 so sums stay exact. */
export const MAX_CENTS = 1_000_000_000_000;
export const centsField = z
  .number()
  .int('must be an integer number of cents')
  .min(0)
  .max(MAX_CENTS)
  .meta({ description: 'Integer cents', example: 4900 });

/** An identifier from another system (a charge, a product, a subscription). */
export const externalId = z.string().trim().min(1).max(255);
