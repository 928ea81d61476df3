import { z } from 'zod';
import { isoString, shortText } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

export const ApiKeyCreate = z
  .strictObject({ name: shortText(100).optional().meta({ description: 'A label for the key, up to 100 characters; left out: null' }) })
  .meta({ id: 'ApiKeyCreate' });
export const ApiKeyListQuery = listQuery({});

/** The operations' descriptions in the OpenAPI document. */
export const apiKeyDocs = {
  create:
    'The secret is in this response only; svc keeps just its SHA-256 hash. The response is `Cache-Control: no-store`, and an `Idempotency-Key` replay of it answers without `secret`. The key sees only its organization’s records.',
  list: 'The organization’s active keys; revoked ones are not listed. Each shows `redacted_key` (`sk_…` and its last four characters), never the secret.',
  revoke:
    'Takes effect at once in the process that answers, and in every other process of the service as soon as the shared state tells them (milliseconds over Redis); no process honours a revoked key for longer than 60 s. The last active key of the organization cannot be revoked (400).',
} as const;

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    redacted_key: z.string().meta({ description: '`sk_…` and the last four characters of the secret', example: 'sk_…a1B2' }),
    organization_id: z.string(),
    created_at: isoString,
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyObject = z.output<typeof ApiKey>;

export const ApiKeyWithSecret = ApiKey.extend({
  secret: z.string().optional().meta({
    description: 'The secret key. Shown only in this response; store it now. Absent when the response is an Idempotency-Key replay.',
  }),
}).meta({ id: 'ApiKeyWithSecret' });
