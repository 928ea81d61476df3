import { describe, expect, it } from 'vitest';
import { type Agent, dashboardAgent } from '../support/dashboard.js';
import { createPartner, createProgram, type TestOrg, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { pngOf, SVG_LOGO, WEBP_1X1 } from '../support/images.js';
import { emailCausedBy, queuedTo, sentEmails } from '../support/outbox.js';
import { portalAgent } from '../support/portal.js';

/**
 * A program's logo and accent color (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color):
 * uploaded on the dashboard's Settings › Portal branding (a multipart form, CSRF-checked), stored
 * beside the program, served by svc under the portal, shown on the portal's pages and in the
 * partner e-mails. What is stored is read in SQL after every refusal. The pure parts:
 * test/unit/branding.test.ts; in a browser: e2e/portal-branding.spec.ts.
 */

const PUBLIC = 'https://svc.example.com';
const LOGO = pngOf(120, 40);

interface File {
  bytes: Buffer;
  name: string;
  type: string;
}
const png = (bytes: Buffer = LOGO): File => ({ bytes, name: 'logo.png', type: 'image/png' });

describe('portal branding', () => {
  const { t, orgs } = useTestApp({ orgs: 2, env: { SVC_PUBLIC_URL: PUBLIC } });

  /** The program's row of program_branding, as SQL has it. */
  const stored = (programId: string) =>
    t.deps.db.selectFrom('program_branding').selectAll().where('program_id', '=', programId).executeTakeFirst();

  /** One signed-in owner per organization, shared by the tests (each with a program of its own). */
  const owners = new Map<TestOrg, ReturnType<typeof dashboardAgent>>();
  async function branding(org: TestOrg) {
    if (!owners.has(org)) owners.set(org, dashboardAgent(t, org));
    const { agent, csrf } = await owners.get(org)!;
    const program = await createProgram(t, org, { type: 'public', auto_approve_partners: true });
    return { agent, csrf, program, url: `/dashboard/programs/${program.id}/settings/branding` };
  }

  /** The branding form as a browser sends it: the CSRF token first, then the fields, then the files. */
  function send(agent: Agent, url: string, csrf: string | undefined, fields: Record<string, string>, files: File[] = []) {
    let req = agent.post(url);
    if (csrf !== undefined) req = req.field('_csrf', csrf);
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    for (const file of files) req = req.attach('logo', file.bytes, { filename: file.name, contentType: file.type });
    return req;
  }

  it('saves an uploaded PNG and an accent color, which svc serves and the portal shows', async () => {
    const [org] = orgs;
    const { agent, csrf, program, url } = await branding(org);
    const page = await agent.get(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('enctype="multipart/form-data"');

    const saved = await send(agent, url, csrf, { accent_color: '#2952cc', accent_color_text: '#E11D48' }, [png()]);
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.location).toBe(`${url}?notice=branding-saved`);

    const row = await stored(program.id);
    expect(row).toMatchObject({
      logo_type: 'image/png',
      logo_size: LOGO.length,
      logo_width: 120,
      logo_height: 40,
      accent_color: '#e11d48',
    });
    expect(Buffer.from(row!.logo!).equals(LOGO)).toBe(true);

    // The logo: the very bytes, at a URL with its hash, cached for good; with another hash, revalidated.
    const version = row!.logo_sha256!.slice(0, 16);
    const logo = await t.request.get(`/p/${program.subdomain}/logo?v=${version}`);
    expect(logo.status).toBe(200);
    expect(Buffer.from(logo.body).equals(LOGO)).toBe(true);
    expect(logo.headers).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
      'cross-origin-resource-policy': 'cross-origin',
    });
    expect(logo.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    expect((await t.request.get(`/p/${program.subdomain}/logo?v=0000`)).headers['cache-control']).toBe('no-cache');

    // The color: a stylesheet of custom properties, at a URL with the color.
    const theme = await t.request.get(`/p/${program.subdomain}/theme.css?v=e11d48`);
    expect(theme.status).toBe(200);
    expect(theme.headers['content-type']).toMatch(/^text\/css/);
    expect(theme.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(theme.text).toContain('--brand: #e11d48;');
    expect(theme.text).toContain('--brand-text: #ffffff;');

    // The portal's public pages and its signed-in pages show both.
    const logoTag = `<img class="logo" src="/p/${program.subdomain}/logo?v=${version}" alt="${program.name}" width="120" height="40"/>`;
    const themeTag = `<link rel="stylesheet" href="/p/${program.subdomain}/theme.css?v=e11d48"/>`;
    const signIn = await t.request.get(`/p/${program.subdomain}/sign-in`);
    expect(signIn.text).toContain(logoTag);
    expect(signIn.text).toContain(themeTag);
    const partner = await createPartner(t, org, { program_id: program.id, email: uniqueEmail('branded') });
    const { home } = await portalAgent(t, program, partner.email);
    expect(home).toContain(`<a class="brand" href="/p/${program.subdomain}/">${logoTag}</a>`);
    expect(home).toContain(themeTag);
    // And the settings page previews the logo, with a button to remove it.
    const again = await agent.get(url);
    expect(again.text).toContain('Remove logo');
    expect(again.text).toContain('value="#e11d48"');
  });

  it('refuses SVG, text named .png, a type that is not the bytes, an oversized file, two files and a bad color: the reason beside its field, nothing changed', async () => {
    const [org] = orgs;
    const { agent, csrf, program, url } = await branding(org);
    expect((await send(agent, url, csrf, { accent_color_text: '#0b3d2e' }, [png()])).status).toBe(303);
    const before = await stored(program.id);

    const refused: [string, Record<string, string>, File[], number, string][] = [
      [
        'SVG',
        {},
        [{ bytes: SVG_LOGO, name: 'logo.svg', type: 'image/svg+xml' }],
        400,
        'The logo must be a PNG, JPEG or WebP image (SVG is not accepted).',
      ],
      [
        'text renamed',
        {},
        [{ bytes: Buffer.from('not an image at all'), name: 'logo.png', type: 'image/png' }],
        400,
        'The logo must be a PNG',
      ],
      [
        'WebP declared PNG',
        {},
        [{ bytes: WEBP_1X1, name: 'logo.png', type: 'image/png' }],
        400,
        'says it is image/png, but its content is image/webp',
      ],
      ['oversized', {}, [png(Buffer.concat([LOGO, Buffer.alloc(300 * 1024)]))], 413, 'The logo is larger than 256 KB'],
      ['two files', {}, [png(), png()], 400, 'Choose one image file for the logo.'],
      // A valid logo with a bad color: neither is saved.
      ['bad color', { accent_color_text: '#12345z' }, [png(pngOf(30, 30))], 400, 'Enter the accent color as #rrggbb'],
    ];
    for (const [label, fields, files, status, message] of refused) {
      const res = await send(agent, url, csrf, fields, files);
      expect(res.status, `${label}: ${res.text}`).toBe(status);
      expect(res.headers['content-type'], label).toMatch(/^text\/html/);
      // The reason beside the field it is about: the color's beside its text field, the rest beside the logo.
      const field = label === 'bad color' ? 'accent-color-text' : 'logo';
      expect(new RegExp(`id="${field}-error">([^<]*)<`).exec(res.text)?.[1], label).toContain(message);
      expect(res.text, label).toContain('This form was not saved: see the message beside the field.');
      expect(res.text, label).toContain('enctype="multipart/form-data"');
      expect(await stored(program.id), label).toEqual(before);
    }
    // What was typed is kept.
    expect((await send(agent, url, csrf, { accent_color_text: '#12345z' })).text).toContain('value="#12345z"');
  });

  it('refuses a form without the session CSRF token, or from another site, before storing anything', async () => {
    const [org] = orgs;
    const { agent, csrf, program, url } = await branding(org);
    for (const [label, req] of [
      ['no token', send(agent, url, undefined, { accent_color_text: '#0b3d2e' }, [png()])],
      ['wrong token', send(agent, url, `${csrf}x`, { accent_color_text: '#0b3d2e' }, [png()])],
      ['other site', send(agent, url, csrf, { accent_color_text: '#0b3d2e' }, [png()]).set('Origin', 'https://evil.example')],
    ] as const) {
      const res = await req;
      expect(res.status, label).toBe(403);
      expect(await stored(program.id), label).toBeUndefined();
    }
    // Signed out: nothing either.
    const res = await send(t.request as unknown as Agent, url, csrf, { accent_color_text: '#0b3d2e' }, [png()]);
    expect(res.status).toBe(401);
    expect(await stored(program.id)).toBeUndefined();
  });

  it("another organization's program is a 404, and changes nothing", async () => {
    const [org, other] = orgs;
    const { agent, csrf } = await branding(org);
    const theirs = await createProgram(t, other);
    const url = `/dashboard/programs/${theirs.id}/settings/branding`;
    expect((await agent.get(url)).status).toBe(404);
    expect((await send(agent, url, csrf, { accent_color_text: '#0b3d2e' }, [png()])).status).toBe(404);
    expect((await agent.post(`${url}/remove-logo`).type('form').send({ _csrf: csrf })).status).toBe(404);
    expect(await stored(theirs.id)).toBeUndefined();
  });

  it('removes the logo (the color stays); a program without a brand has neither, and its pages link none', async () => {
    const [org] = orgs;
    const { agent, csrf, program, url } = await branding(org);
    expect((await t.request.get(`/p/${program.subdomain}/logo`)).status).toBe(404);
    expect((await t.request.get(`/p/${program.subdomain}/theme.css`)).status).toBe(404);
    const plain = await t.request.get(`/p/${program.subdomain}/sign-in`);
    expect(plain.text).not.toContain('class="logo"');
    expect(plain.text).not.toContain('theme.css');

    expect((await send(agent, url, csrf, { accent_color_text: '#facc15' }, [png()])).status).toBe(303);
    // Saving the color again without a file keeps the logo.
    expect((await send(agent, url, csrf, { accent_color: '#0b3d2e', accent_color_text: '#facc15' })).status).toBe(303);
    expect(await stored(program.id)).toMatchObject({ accent_color: '#0b3d2e', logo_size: LOGO.length });

    const removed = await agent.post(`${url}/remove-logo`).type('form').send({ _csrf: csrf });
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toBe(`${url}?notice=logo-removed`);
    expect(await stored(program.id)).toMatchObject({ logo: null, logo_type: null, logo_sha256: null, accent_color: '#0b3d2e' });
    expect((await t.request.get(`/p/${program.subdomain}/logo`)).status).toBe(404);
    const signIn = await t.request.get(`/p/${program.subdomain}/sign-in`);
    expect(signIn.text).toContain(`${program.name} partner program`);
    expect(signIn.text).toContain('theme.css?v=0b3d2e');
    // An emptied text field is svc's own colors again.
    expect((await send(agent, url, csrf, { accent_color: '#0b3d2e', accent_color_text: '' })).status).toBe(303);
    expect((await stored(program.id))?.accent_color).toBeNull();
  });

  it("e-mails show the logo at svc's public address and the accent on headline and links; the text part is unchanged", async () => {
    const [org] = orgs;
    const { agent, csrf, program, url } = await branding(org);
    const welcome = (email: string) =>
      emailCausedBy(t, { to: email, kind: 'partner_welcome' }, () =>
        createPartner(t, org, { program_id: program.id, email, first_name: 'Ann', send_welcome_email: true }),
      );
    const before = uniqueEmail('before');
    await welcome(before);
    await sentEmails(t);
    expect((await send(agent, url, csrf, { accent_color_text: '#facc15' }, [png()])).status).toBe(303);
    const sha = (await stored(program.id))!.logo_sha256!;

    const after = uniqueEmail('after');
    await welcome(after);
    await emailCausedBy(t, { to: after, kind: 'partner_sign_in_link' }, () =>
      t.request.post(`/p/${program.subdomain}/sign-in`).type('form').send({ email: after }),
    );
    const sent = await sentEmails(t);
    const [plain] = await queuedTo(t, before);
    const [branded, link] = await queuedTo(t, after);

    // The same words, as text, before and after: only the HTML wears the brand.
    expect(branded.text_body).toBe(plain.text_body);
    // (The .eml files are named by the e-mails' random ids: compared in any order.)
    expect(
      sent
        .filter((m) => m.to === after)
        .map((m) => m.text)
        .sort(),
    ).toEqual([branded.text_body, link.text_body].sort());
    expect(plain.html_body).not.toContain('<img');
    const logo = `<img src="${PUBLIC}/p/${program.subdomain}/logo?v=${sha.slice(0, 16)}" width="120" height="40" alt="${program.name}"`;
    expect(branded.html_body).toContain(logo);
    expect(link.html_body).toContain(logo);
    // Yellow reads poorly on white: the headline and the link get it darkened.
    const color = /<h1 style="[^"]*color:(#[0-9a-f]{6})">Sign in to the /.exec(link.html_body!)?.[1];
    expect(color).toMatch(/^#[0-9a-f]{6}$/);
    expect(color).not.toBe('#facc15');
    const signInUrl = /https:\/\/\S+\/sign-in\/[0-9A-Za-z]+/.exec(link.text_body)![0];
    expect(signInUrl.startsWith(`${PUBLIC}/p/`)).toBe(true);
    expect(link.html_body).toContain(`<a href="${signInUrl}" style="color:${color}">${signInUrl}</a>`);
  });
});
