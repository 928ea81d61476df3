import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.js';
import type { ProgramRow } from '../../db/schema.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { type EmailBrand, partnerEmailHtml } from '../partners/partner-emails.js';
import { requireProgram } from '../programs/programs.service.js';
import { ACCENT_COLOR, accentPalette } from './accent-color.js';
import { clearLogo, findBrand, findEmailBrand, findLogo, upsertBrand } from './branding.repository.js';
import { LOGO_MAX_BYTES, recognizeLogo } from './logo-image.js';

/**
 * A program's logo and accent color (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color):
 * what may be stored, where each is served, and how the portal and the e-mails show them.
 */

export interface Brand {
  logo: { sha256: string; type: string; width: number; height: number } | null;
  /** `#rrggbb`, or null for svc's own colors. */
  accentColor: string | null;
}

/** A program with its brand, as the portal's pages have it. */
export type BrandedProgram = ProgramRow & { brand: Brand };

const NO_BRAND: Brand = { logo: null, accentColor: null };

/** The program's brand (nothing set: no logo and svc's colors). */
export async function programBrand(db: Db, programId: string): Promise<Brand> {
  const row = await findBrand(db, programId);
  if (!row) return NO_BRAND;
  const { logo_type: type, logo_sha256: sha256, logo_width: width, logo_height: height } = row;
  return { logo: type && sha256 && width && height ? { type, sha256, width, height } : null, accentColor: row.accent_color };
}

/** A color typed in a form: `#rrggbb` or `rrggbb` in any case, stored in lower case; empty for svc's own. */
export function parseAccentColor(value: unknown): string | null {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (text === '') return null;
  const color = text.startsWith('#') ? text : `#${text}`;
  if (!ACCENT_COLOR.test(color)) throw badRequest('Enter the accent color as #rrggbb, e.g. #2952cc.', 'accent_color');
  return color;
}

export interface BrandInput {
  accentColor: string | null;
  /** A new logo as uploaded; left out, the stored one stays. */
  logo?: { bytes: Uint8Array; declaredType: string };
}

/** Saves the accent color and, when given, a new logo, after checking the logo's bytes: a refused logo changes nothing. */
export async function saveBrand(db: Db, organizationId: string, programId: string, input: BrandInput): Promise<void> {
  await requireProgram(db, organizationId, programId);
  let logo: Parameters<typeof upsertBrand>[3];
  if (input.logo) {
    const { bytes, declaredType } = input.logo;
    if (bytes.length > LOGO_MAX_BYTES) throw logoTooLarge();
    const image = recognizeLogo(bytes, declaredType);
    if ('refusal' in image) throw badRequest(image.refusal, 'logo');
    logo = { ...image, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  await upsertBrand(db, programId, input.accentColor, logo, new Date());
}

/** The answer to a logo over LOGO_MAX_BYTES, from here or from the multipart parser that stopped reading it. */
export const logoTooLarge = () =>
  new ApiError('payload_too_large', `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB: choose a smaller image.`, { param: 'logo' });

export async function removeLogo(db: Db, organizationId: string, programId: string): Promise<void> {
  await requireProgram(db, organizationId, programId);
  await clearLogo(db, programId, new Date());
}

/** The logo's bytes as served, or undefined. */
export async function logoToServe(db: Db, programId: string) {
  const row = await findLogo(db, programId);
  return row?.logo && row.logo_type && row.logo_sha256 ? { bytes: row.logo, type: row.logo_type, sha256: row.logo_sha256 } : undefined;
}

/*
 * Where each part of a brand is served, under the program's portal. Each URL carries what it
 * serves (the logo's hash, the color), so it is cached for good and a change is a new URL.
 */
const versionOf = (sha256: string) => sha256.slice(0, 16);
export const logoPath = (subdomain: string, logo: { sha256: string }) => `/p/${subdomain}/logo?v=${versionOf(logo.sha256)}`;
export const themePath = (subdomain: string, accentColor: string) => `/p/${subdomain}/theme.css?v=${accentColor.slice(1)}`;
/** Whether a request's `v` names what is served now: only then is the answer cached for good. */
export const logoVersionIs = (v: unknown, logo: { sha256: string }) => v === versionOf(logo.sha256);
export const themeVersionIs = (v: unknown, accentColor: string) => v === accentColor.slice(1);

/**
 * The portal's stylesheet of an accent color: its palette as the custom properties dashboard.css
 * and portal.css draw with (`--accent` for text, `--brand` for fills), so no page needs an
 * inline style, which their Content-Security-Policy refuses.
 */
export function themeCss(accentColor: string): string {
  const { fill, onFill, text } = accentPalette(accentColor);
  return `/* The program's accent color ${accentColor} (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color) */
body.portal {
  --accent: ${text};
  --accent-text: #ffffff;
  --brand: ${fill};
  --brand-text: ${onFill};
}
`;
}

/** The largest the logo is drawn at the top of an e-mail, in CSS pixels. */
const EMAIL_LOGO = { height: 48, width: 240 };

/**
 * The brand an e-mail about the program wears: the logo's absolute URL at svc's public address
 * (SVC_PUBLIC_URL, never a request's Host), its size as drawn, and the accent as text on white.
 */
export async function emailBrand(db: Db, programId: string, publicUrl: string): Promise<EmailBrand | undefined> {
  const row = await findEmailBrand(db, programId);
  if (!row) return undefined;
  const { logo_sha256: sha256, logo_width: width, logo_height: height } = row;
  const scale = width && height ? Math.min(1, EMAIL_LOGO.height / height, EMAIL_LOGO.width / width) : 0;
  return {
    programName: row.name,
    publicUrl,
    logo:
      sha256 && width && height
        ? {
            url: `${publicUrl}${logoPath(row.subdomain, { sha256 })}`,
            width: Math.max(1, Math.round(width * scale)),
            height: Math.max(1, Math.round(height * scale)),
          }
        : null,
    accentText: row.accent_color ? accentPalette(row.accent_color).text : null,
  };
}

/** The HTML of a queued e-mail about a program, as it is sent: its text in the program's brand. */
export async function brandedEmailHtml(db: Db, publicUrl: string, programId: string, email: { subject: string; text_body: string }) {
  return partnerEmailHtml(email.subject, email.text_body, await emailBrand(db, programId, publicUrl));
}
