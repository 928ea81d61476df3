import { colord, extend } from 'colord';
import a11yPlugin from 'colord/plugins/a11y';

extend([a11yPlugin]);

/**
 * A program's accent color made readable (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color):
 * every pair of colors svc draws with it reaches WCAG AA for normal text (4.5:1), whatever color
 * the merchant picked, so the portal stays clean under axe and its buttons stay legible. Pure: the
 * portal's stylesheet and the e-mails both take their colors from here.
 */

/** How an accent color is written and stored: `#rrggbb`, lower case. */
export const ACCENT_COLOR = /^#[0-9a-f]{6}$/;

const AA = 4.5;
const WHITE = '#ffffff';
const NEAR_BLACK = '#111111';
/**
 * The light backgrounds the accent is drawn on as text in the portal and the e-mails: cards and
 * e-mails (white), the page (dashboard.css `--bg`) and the current section's tab (#e6ecfb).
 */
const LIGHT_BACKGROUNDS = [WHITE, '#f6f7f9', '#e6ecfb'];

export interface AccentPalette {
  /** The merchant's color as a fill (the header's band, primary buttons): itself, unless no text reads on it at AA, then nudged until one does. */
  fill: string;
  /** White or near-black, whichever contrasts more with `fill`. */
  onFill: string;
  /** The accent as text on the light backgrounds (links, headlines, the current section): itself, or darkened until it reads on each at AA. */
  text: string;
}

/** The contrast ratio of two colors (1 to 21), rounded down as colord does, so never above what a checker such as axe finds. */
export const contrast = (a: string, b: string): number => colord(a).contrast(b);

const worstOnLight = (color: string) => Math.min(...LIGHT_BACKGROUNDS.map((bg) => contrast(color, bg)));
const betterText = (fill: string) => (contrast(fill, WHITE) >= contrast(fill, NEAR_BLACK) ? WHITE : NEAR_BLACK);

/** The palette of an accent color (`#rrggbb`). */
export function accentPalette(accent: string): AccentPalette {
  // Mid-tones (luminance near 0.2) reach about 4.3:1 with either text color: such a fill moves
  // toward the side of the text that reads better until it reaches AA; every other fill is kept.
  let fill = colord(accent).toHex();
  const onFill = betterText(fill);
  while (contrast(fill, onFill) < AA) fill = (onFill === WHITE ? colord(fill).darken(0.01) : colord(fill).lighten(0.01)).toHex();
  let text = colord(accent).toHex();
  while (worstOnLight(text) < AA) text = colord(text).darken(0.01).toHex();
  return { fill, onFill, text };
}
