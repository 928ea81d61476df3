import { z } from 'zod';
import { isoString, shortText } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

export const ApiKeyCreate = z.strictObject({ name: shortText(100).optional() }).meta({ id: 'ApiKeyCreate' });
export const ApiKeyListQuery = listQuery({});

/** The operations' descriptions in the OpenAPI document. */
export const apiKeyDocs = {
  create:
    'The secret is in this response only; svc keeps just its SHA-256 hash. The response is `Cache-Control: no-store`, and an `Idempotency-Key` replay of it answers without `secret`.',
  revoke: 'Takes effect at once. The last active key of the organization cannot be revoked.',
} as const;

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    redacted_key: z.string().meta({ example: 'sk_…a1B2' }),
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
