import { z } from 'zod';
import { isoString, shortText } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

export const ApiKeyCreate = z.strictObject({ name: shortText(100).optional() }).meta({ id: 'ApiKeyCreate' });
export const ApiKeyListQuery = listQuery({});

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    redacted_key: z.string().meta({ example: 'sk_…a1B2' }),
    organization_id: z.string(),
    created_at: isoString,
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyWithSecret = ApiKey.extend({
  secret: z.string().optional().meta({
    description: 'The secret key. Shown only in this response; store it now. Absent when the response is an Idempotency-Key replay.',
  }),
}).meta({ id: 'ApiKeyWithSecret' });
