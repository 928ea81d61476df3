import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accentPalette, contrast } from '../../src/resources/branding/accent-color.js';
import { LOGO_MAX_BYTES, recognizeLogo } from '../../src/resources/branding/logo-image.js';
import { partnerEmailHtml } from '../../src/resources/partners/partner-emails.js';
import { jpegHeadOf, pngOf, SVG_LOGO, WEBP_1X1 } from '../support/images.js';

/**
 * The pure parts of a program's brand (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color):
 * which bytes are a logo, the accent's palette, and the e-mails' HTML shell. Through HTTP (upload,
 * serving, the portal, e-mails sent): test/dashboard/branding.test.ts.
 */

describe('which files are a logo', () => {
  it('takes PNG, JPEG and WebP by their bytes, with their size in pixels', () => {
    expect(recognizeLogo(pngOf(120, 40), 'image/png')).toEqual({ type: 'image/png', width: 120, height: 40 });
    expect(recognizeLogo(jpegHeadOf(300, 100), 'image/jpeg')).toEqual({ type: 'image/jpeg', width: 300, height: 100 });
    // Some browsers still declare JPEG files as image/jpg.
    expect(recognizeLogo(jpegHeadOf(300, 100), 'image/jpg')).toEqual({ type: 'image/jpeg', width: 300, height: 100 });
    expect(recognizeLogo(WEBP_1X1, 'image/webp')).toEqual({ type: 'image/webp', width: 1, height: 1 });
  });

  it('refuses SVG, text, an empty file, bytes of another type than declared, and oversized ones', () => {
    const refusal = (bytes: Buffer, type: string) => (recognizeLogo(bytes, type) as { refusal?: string }).refusal;
    expect(refusal(SVG_LOGO, 'image/svg+xml')).toMatch(/PNG, JPEG or WebP.*SVG is not accepted/);
    // Declared as a PNG, named .png: the bytes decide.
    expect(refusal(Buffer.from('just some text, renamed logo.png'), 'image/png')).toMatch(/PNG, JPEG or WebP/);
    expect(refusal(Buffer.alloc(0), 'image/png')).toBe('The logo file is empty.');
    expect(refusal(pngOf(10, 10), 'image/jpeg')).toBe('The logo file says it is image/jpeg, but its content is image/png.');
    expect(refusal(pngOf(10, 10), '')).toBe('The logo file says it is of no type, but its content is image/png.');
    expect(refusal(Buffer.concat([pngOf(10, 10), Buffer.alloc(LOGO_MAX_BYTES)]), 'image/png')).toBe('The logo is larger than 256 KB.');
    expect(refusal(pngOf(5000, 1), 'image/png')).toBe('The logo is 5000×1 pixels; its sides can be at most 4096.');
  });
});

describe('the accent palette', () => {
  const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);

  it('reads at WCAG AA (4.5:1) for any color: text on the fill, and the text color on every light background', () => {
    fc.assert(
      fc.property(hex, (accent) => {
        const { fill, onFill, text } = accentPalette(accent);
        expect(['#ffffff', '#111111']).toContain(onFill);
        expect(contrast(fill, onFill)).toBeGreaterThanOrEqual(4.5);
        for (const background of ['#ffffff', '#f6f7f9', '#e6ecfb']) expect(contrast(text, background)).toBeGreaterThanOrEqual(4.5);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a color that reads already, and says which text reads on it', () => {
    expect(accentPalette('#2952cc')).toEqual({ fill: '#2952cc', onFill: '#ffffff', text: '#2952cc' });
    expect(accentPalette('#0b3d2e')).toEqual({ fill: '#0b3d2e', onFill: '#ffffff', text: '#0b3d2e' });
    // Yellow: near-black text on it; as text on white it is darkened.
    const yellow = accentPalette('#facc15');
    expect(yellow).toMatchObject({ fill: '#facc15', onFill: '#111111' });
    expect(yellow.text).not.toBe('#facc15');
  });

  it('moves a mid-tone fill on which neither white nor near-black reads, only as far as it takes', () => {
    const mid = '#d9480f';
    expect(Math.max(contrast(mid, '#ffffff'), contrast(mid, '#111111'))).toBeLessThan(4.5);
    const { fill, onFill } = accentPalette(mid);
    expect(fill).not.toBe(mid);
    expect(contrast(fill, onFill)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(fill, onFill)).toBeLessThan(4.8);
  });
});

describe("the e-mails' HTML", () => {
  const text = 'Hi Ann,\n\nSign in here:\nhttps://svc.example.com/p/acme/sign-in/abc\n\nNot a link: https://evil.example/x <b>';

  it("shows the logo, and the accent on the headline and on links to svc's own address only", () => {
    const html = partnerEmailHtml('Sign in to Acme & co', text, {
      programName: 'Acme & co',
      publicUrl: 'https://svc.example.com',
      logo: { url: 'https://svc.example.com/p/acme/logo?v=0123456789abcdef', width: 144, height: 48 },
      accentText: '#0b3d2e',
    });
    expect(html).toContain(
      '<img src="https://svc.example.com/p/acme/logo?v=0123456789abcdef" width="144" height="48" alt="Acme &amp; co" style="display:block;border:0">',
    );
    expect(html).toContain('<h1 style="font-size:20px;line-height:1.3;color:#0b3d2e">Sign in to Acme &amp; co</h1>');
    expect(html).toContain(
      '<a href="https://svc.example.com/p/acme/sign-in/abc" style="color:#0b3d2e">https://svc.example.com/p/acme/sign-in/abc</a>',
    );
    expect(html).toContain('Not a link: https://evil.example/x &lt;b&gt;</p>');
    expect(html).toMatch(/^<!doctype html>.*<p>Hi Ann,<\/p><p>Sign in here:<br>/);
  });

  it("without a brand: svc's colors, no logo, no links", () => {
    const html = partnerEmailHtml('Hello', text);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<a ');
    expect(html).toContain('color:#2952cc">Hello</h1>');
  });
});
