import type { RequestHandler, Router } from 'express';
import multer from 'multer';
import type { AppDeps } from '../../deps.js';
import { type ApiError, badRequest } from '../../http/errors.js';
import { Field, FormRefusal } from '../../pages/fields.js';
import { orRefused, type Refusal } from '../../pages/refusal.js';
import { sendPage } from '../../pages/render.js';
import {
  type Brand,
  logoPath,
  logoTooLarge,
  parseAccentColor,
  programBrand,
  removeLogo,
  saveBrand,
} from '../../resources/branding/branding.service.js';
import { LOGO_MAX_BYTES, LOGO_MAX_PIXELS } from '../../resources/branding/logo-image.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Csrf } from '../layout.js';
import { SettingsLayout } from '../settings-layout.js';

/**
 * The program's logo and accent color on its partner portal and e-mails
 * (ingest/docs/dashboard.md#portal-branding): a multipart form, saved by the branding service,
 * which checks the logo's bytes. A refused form shows its page again with the reason beside the
 * field it is about and the color typed; nothing is saved.
 */

export const brandingNotices: Record<string, string> = {
  'branding-saved': 'Portal branding saved.',
  'logo-removed': 'Logo removed: the portal shows the program’s name again.',
};

/** The form's path: its multipart body is read before the CSRF check (brandingFormBody). */
export const BRANDING_PATH = '/programs/:programId/settings/branding';

/**
 * The form's multipart body (multer, in memory): at most one file of LOGO_MAX_BYTES and a few
 * small fields, the parser stopping as soon as one is over. It runs before the dashboard's
 * sign-in and CSRF checks (dashboard.routes.tsx), since the CSRF token is one of the fields; a
 * body it refuses is left for the page to explain (res.locals.brandingRefusal), after those checks
 * have passed, and the file is only ever stored by the page's handler, after them.
 */
const parseForm = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: LOGO_MAX_BYTES, files: 1, fields: 8, parts: 9, fieldSize: 1024, fieldNameSize: 100 },
}).single('logo');

export const brandingFormBody: RequestHandler = (req, res, next) => {
  parseForm(req, res, (err: unknown) => {
    if (err) res.locals.brandingRefusal = multipartRefusal(err);
    next();
  });
};

function multipartRefusal(err: unknown): ApiError {
  if (err instanceof multer.MulterError && err.code === 'LIMIT_FILE_SIZE') return logoTooLarge();
  if (err instanceof multer.MulterError && (err.code === 'LIMIT_FILE_COUNT' || err.code === 'LIMIT_UNEXPECTED_FILE')) {
    return badRequest('Choose one image file for the logo.', 'logo');
  }
  return badRequest('The form could not be read: reload the page and try again.');
}

const LABELS = { logo: 'Logo', accent_color: 'Accent color' };

/** svc's own accent (dashboard.css), which the color picker shows while the program has none. */
const SVC_ACCENT = '#2952cc';

/**
 * The color the form asks for: the text field when it was changed (emptied: svc's own colors),
 * else the picker when it was changed, else the saved one. Browsers without a color picker show
 * it as a text field too.
 */
function chosenAccent(body: Record<string, unknown>, saved: string | null): unknown {
  const typed = typeof body.accent_color_text === 'string' ? body.accent_color_text.trim() : undefined;
  if (typed !== undefined && typed.toLowerCase() !== (saved ?? '')) return typed;
  const picked = typeof body.accent_color === 'string' ? body.accent_color.trim() : undefined;
  if (picked !== undefined && picked.toLowerCase() !== (saved ?? SVC_ACCENT)) return picked;
  return saved ?? '';
}

export function registerBrandingPages(router: Router, deps: AppDeps, contextOf: ContextOf): void {
  const { db } = deps;

  router.get(BRANDING_PATH, async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    sendPage(res, <BrandingPage ctx={ctx} brand={await programBrand(db, ctx.program.id)} />);
  });

  router.post(BRANDING_PATH, async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    const program = ctx.program;
    const brand = await programBrand(db, program.id);
    const body = (req.body ?? {}) as Record<string, unknown>;
    await orRefused(
      async () => {
        const refused = res.locals.brandingRefusal as ApiError | undefined;
        if (refused) throw refused;
        const accentColor = parseAccentColor(chosenAccent(body, brand.accentColor));
        const logo = req.file ? { bytes: req.file.buffer, declaredType: req.file.mimetype } : undefined;
        await saveBrand(db, ctx.user.organization_id, program.id, { accentColor, logo });
        res.redirect(303, programPath(program, '/settings/branding?notice=branding-saved'));
      },
      LABELS,
      (refusal) => {
        const typed = typeof body.accent_color_text === 'string' ? body.accent_color_text : undefined;
        // The color is refused as the API's accent_color: the text field is where it was typed.
        const beside = refusal.field === 'accent_color' ? { ...refusal, field: 'accent_color_text' } : refusal;
        sendPage(res, <BrandingPage ctx={ctx} brand={brand} refusal={beside} typed={typed} />, refusal.status);
      },
    );
  });

  router.post(`${BRANDING_PATH}/remove-logo`, async (req, res) => {
    const ctx = await contextOf(res, 'settings', req.params.programId);
    await removeLogo(db, ctx.user.organization_id, ctx.program.id);
    res.redirect(303, programPath(ctx.program, '/settings/branding?notice=logo-removed'));
  });
}

/** The logo as previewed here: at most 64 pixels high and 256 wide (size attributes: no inline style). */
function previewSize(logo: NonNullable<Brand['logo']>) {
  const scale = Math.min(1, 64 / logo.height, 256 / logo.width);
  return { width: Math.max(1, Math.round(logo.width * scale)), height: Math.max(1, Math.round(logo.height * scale)) };
}

function BrandingPage({ ctx, brand, refusal, typed }: { ctx: ProgramPageContext; brand: Brand; refusal?: Refusal; typed?: string }) {
  const program = ctx.program;
  const action = programPath(program, '/settings/branding');
  return (
    <SettingsLayout ctx={ctx} tab="/branding" title="Portal branding">
      <h2 id="branding-title">Portal branding</h2>
      <p class="hint">Your logo and accent color on the partner portal and in the e-mails partners get from the program.</p>
      <form method="post" action={action} enctype="multipart/form-data" class="stack settings-form" aria-labelledby="branding-title">
        <Csrf ctx={ctx} />
        <FormRefusal refusal={refusal} fields={['logo', 'accent_color_text']} />
        <Field
          name="logo"
          label={brand.logo ? 'New logo' : 'Logo'}
          type="file"
          accept="image/png,image/jpeg,image/webp"
          hint={`PNG, JPEG or WebP, up to ${LOGO_MAX_BYTES / 1024} KB and ${LOGO_MAX_PIXELS} pixels a side; not SVG. It stands for the program's name at the top of the portal and of the e-mails.${brand.logo ? ' Left empty, the current logo stays.' : ''}`}
          refusal={refusal}
        />
        <Field
          name="accent_color"
          id="accent-color"
          label="Accent color"
          type="color"
          value={brand.accentColor ?? SVC_ACCENT}
          hint="The portal's header band, buttons and links, and the e-mails' headline and links."
        />
        <Field
          name="accent_color_text"
          id="accent-color-text"
          label="Accent color as text (#rrggbb)"
          value={typed ?? brand.accentColor ?? ''}
          placeholder={SVC_ACCENT}
          maxlength={7}
          autocomplete="off"
          hint="Text on it is white or near-black, whichever reads better; a color too light to read on white is darkened for links and headlines. Leave it empty for svc's own colors."
          refusal={refusal}
        />
        <button type="submit" class="primary">
          Save branding
        </button>
      </form>
      {brand.logo ? (
        <>
          <h2>Current logo</h2>
          <p>
            <img src={logoPath(program.subdomain, brand.logo)} alt={`${program.name} logo`} {...previewSize(brand.logo)} />
          </p>
          <form method="post" action={`${action}/remove-logo`}>
            <Csrf ctx={ctx} />
            <button type="submit" class="danger" data-confirm="Remove the logo? The portal shows the program's name instead.">
              Remove logo
            </button>
          </form>
        </>
      ) : null}
    </SettingsLayout>
  );
}
