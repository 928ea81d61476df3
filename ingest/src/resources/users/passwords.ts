import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { randomBase62 } from '../../ids.js';

/**
 * Dashboard passwords, hashed with scrypt (Node's own, memory-hard) at N = 2^15, r = 8, p = 3:
 * one of the OWASP Password Storage Cheat Sheet's equivalent minimums, chosen for its 32 MiB per
 * hash (2^17 with p = 1 needs 128 MiB for every sign-in in flight). The parameters are stored with
 * each hash, so raising them later keeps older hashes readable.
 */
const run = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const PRODUCTION_COST = { N: 2 ** 15, r: 8, p: 3 } as const;
let COST: { N: number; r: number; p: number } = PRODUCTION_COST;
const KEY_LENGTH = 32;

/**
 * Hash new passwords at a lower cost, for the tests only: the API suite's setup file and a
 * process with the test hooks on (SVC_TEST_HOOKS=1, the browser tests) hash and verify hundreds
 * of passwords, at about 0.3 s of a core each at the production cost. Verification follows the
 * cost stored with each hash, and the command-line tests check a real process's production cost.
 */
export function hashNewPasswordsCheaply(): void {
  COST = { N: 2 ** 10, r: 8, p: 1 };
  unusable = undefined;
}

const maxmem = (c: { N: number; r: number }) => 256 * c.N * c.r;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await run(password.normalize('NFKC'), salt, KEY_LENGTH, { ...COST, maxmem: maxmem(COST) });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !key) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const expected = Buffer.from(key, 'base64');
  const actual = await run(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, { ...cost, maxmem: maxmem(cost) });
  return timingSafeEqual(actual, expected);
}

let unusable: Promise<string> | undefined;
/** A hash no password matches, verified when the e-mail is unknown so that both cases take as long. */
export const unusableHash = (): Promise<string> => (unusable ??= hashPassword(randomBase62(32)));

/** A password for a user created from the command line or at first start, printed once. */
export const generatePassword = (): string => randomBase62(20);
