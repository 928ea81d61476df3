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

/** ISO 8601 timestamp with an offset or Z, turned into a Date. */
export const timestampField = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v))
  .meta({ description: 'ISO 8601 timestamp', example: '2026-01-31T12:00:00.000Z' });

export const urlField = z
  .url({ protocol: /^https?$/ })
  .max(2048);

export const PAYOUT_METHODS = ['paypal', 'crypto', 'wise', 'bank_transfer', 'wire', 'none'] as const;
export const payoutMethod = z.enum(PAYOUT_METHODS);

/** Response timestamps: ISO 8601 UTC with milliseconds. */
export const isoString = z.iso.datetime().meta({ example: '2026-01-31T12:00:00.000Z' });
export const toIso = (d: Date | string) => new Date(d).toISOString();
export const toIsoOrNull = (d: Date | string | null) => (d === null ? null : toIso(d));

/** Money: integer cents, never negative, capped far below 2^53 so sums stay exact. */
export const MAX_CENTS = 1_000_000_000_000;
export const centsField = z.number().int('must be an integer number of cents').min(0).max(MAX_CENTS).meta({ description: 'Integer cents', example: 4900 });

/** An identifier from another system (a charge, a product, a subscription). */
export const externalId = z.string().trim().min(1).max(255);
