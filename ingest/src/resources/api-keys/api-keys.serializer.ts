import type { ApiKeyRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import type { ApiKeyObject } from './api-keys.schema.js';

/** The key as the API shows it: never its secret or hash, only the secret's last four characters. */
export function toApiKey(k: ApiKeyRow): ApiKeyObject {
  return { id: k.id, name: k.name, redacted_key: `sk_…${k.last4}`, organization_id: k.organization_id, created_at: toIso(k.created_at) };
}
