import { imageSize } from 'image-size';

/**
 * What a logo may be (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color): a raster
 * image of a type recognised by its own bytes (image-size reads the signature and the header of
 * each format), never by its file name or the type the browser declared. No SVG: an SVG is a
 * document that can carry script. Pure.
 */

/** The largest logo accepted, in bytes: the multipart parser stops reading past it. */
export const LOGO_MAX_BYTES = 256 * 1024;
/** The largest side in pixels: a small file can still decode to a huge bitmap in every partner's browser and mail program. */
export const LOGO_MAX_PIXELS = 4096;

/** The content types svc stores and serves, by image-size's name for each format. */
const TYPES: Record<string, LogoType> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };
export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface LogoImage {
  type: LogoType;
  width: number;
  height: number;
}

/** The image in `bytes` and its size, or why it is no logo (a sentence for the merchant). */
export function recognizeLogo(bytes: Uint8Array, declaredType: string): LogoImage | { refusal: string } {
  if (bytes.length === 0) return { refusal: 'The logo file is empty.' };
  if (bytes.length > LOGO_MAX_BYTES) return { refusal: `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB.` };
  let found: { type?: string; width: number; height: number } | undefined;
  try {
    found = imageSize(bytes);
  } catch {
    found = undefined;
  }
  const type = found?.type === undefined ? undefined : TYPES[found.type];
  if (!found || !type) return { refusal: 'The logo must be a PNG, JPEG or WebP image (SVG is not accepted).' };
  // A file whose name or declared type says one format and whose bytes are another is refused:
  // it is not what the merchant thinks they uploaded.
  const declared = declaredType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : declaredType.toLowerCase();
  if (declared !== type)
    return { refusal: `The logo file says it is ${declaredType.slice(0, 60) || 'of no type'}, but its content is ${type}.` };
  if (!(found.width > 0 && found.height > 0)) return { refusal: 'The logo image has no size.' };
  if (found.width > LOGO_MAX_PIXELS || found.height > LOGO_MAX_PIXELS) {
    return { refusal: `The logo is ${found.width}×${found.height} pixels; its sides can be at most ${LOGO_MAX_PIXELS}.` };
  }
  return { type, width: found.width, height: found.height };
}
