import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Webhook signatures, by the Standard Webhooks scheme with its reference library (never by hand):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one such value per secret
 * in use, separated by spaces, so a receiver that knows either secret accepts the request while a
 * rotated secret overlaps the new one.
 */

/** A new signing secret: `whsec_` and 32 random bytes in base64, as the scheme's secrets are. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secret's last four characters after `whsec_…`, to tell secrets apart without showing them. */
export const redactSecret = (secret: string) => `whsec_…${secret.slice(-4)}`;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs deliveries with each of `secrets` (their keys decoded once): the three headers of a body (event `id`'s JSON) sent at `at`. */
export function createSigner(secrets: string[]): (id: string, body: string, at: Date) => SignedHeaders {
  const signers = secrets.map((secret) => new Webhook(secret));
  return (id, body, at) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signers.map((signer) => signer.sign(id, at, body)).join(' '),
  });
}
