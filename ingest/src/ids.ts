import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const ID_PREFIXES = {
  organization: 'org',
  program: 'prg',
  group: 'grp',
  partner: 'part',
  link: 'lnk',
  click: 'clk',
  customer: 'cust',
  commission: 'comm',
  transaction: 'txn',
  promotionCode: 'prc',
  flow: 'flw',
  payout: 'po',
  apiKey: 'key',
  email: 'eml',
  /** Made in SQL by the triggers of migration 0009 (svc_random_id), in the same shape. */
  event: 'evt',
  webhookEndpoint: 'we',
  user: 'usr',
  /** Made in SQL by the delivery worker's fan-out (svc_random_id) and by newId. */
  webhookDelivery: 'wd',
  riskEvent: 'risk',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** Uniform base62: bytes at or above 248 (4 × 62) are discarded so no character is favoured. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBase62(24)}`;
}

export function newSecretKey(): string {
  return `sk_${randomBase62(32)}`;
}

export function newPublicKey(): string {
  return `pk_${randomBase62(24)}`;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A PostgreSQL advisory lock key for a name: 60 bits of its hash, so a positive bigint. */
export const advisoryLockId = (name: string): bigint => BigInt(`0x${sha256(name).slice(0, 15)}`);
