import { z } from 'zod';
import { isoString } from '../../http/fields.js';

export const EMBED_TOKEN_SECONDS = { default: 3600, min: 60, max: 86_400 } as const;

export const EmbedTokenCreate = z
  .strictObject({
    expires_in: z
      .number()
      .int()
      .min(EMBED_TOKEN_SECONDS.min)
      .max(EMBED_TOKEN_SECONDS.max)
      .default(EMBED_TOKEN_SECONDS.default)
      .meta({ description: 'Seconds the token opens the portal for (60 to 86400, default 3600)' }),
  })
  .meta({ id: 'EmbedTokenCreate' });
export type EmbedTokenCreateInput = z.output<typeof EmbedTokenCreate>;

export const EmbedToken = z
  .object({
    token: z.string().meta({ description: 'Shown once; only its hash is stored' }),
    url: z.string().meta({ description: "The partner's portal for an iframe's src: /p/{subdomain}/embed/{token}" }),
    partner_id: z.string(),
    program_id: z.string(),
    expires_at: isoString,
  })
  .meta({ id: 'EmbedToken' });
export type EmbedTokenObject = z.output<typeof EmbedToken>;

export const embedTokenDocs = {
  create:
    "A short-lived token that opens the partner's portal in an iframe of your app without a sign-in (ingest/docs/partner-portal.md). Make one per page view on your server, with your secret key, and put `url` in the iframe's `src`; never cache it in a browser. The partner's status applies as in the portal: a pending, rejected or suspended partner sees their state only. The token is random and stored as its SHA-256; it ends when it expires or at once when the partner is deleted.",
} as const;
