import type { Db } from '../../db/database.js';
import type { ProgramRow } from '../../db/schema.js';
import type { SharedStore } from '../../store/index.js';
import { createLocalCache, forgetEverywhere } from '../../store/local-cache.js';
import { findProgramByPublicKey } from './programs.repository.js';

const PROGRAM_CACHE = { name: 'programs', max: 10_000, ttlMs: 60_000 };

/** Programs by public key, in process: the script's endpoints need one on every request. */
export function programsByPublicKey(db: Db, store: SharedStore): (publicKey: string) => Promise<ProgramRow | undefined> {
  const cache = createLocalCache<ProgramRow>(store, PROGRAM_CACHE);
  return (publicKey) => cache.get(publicKey, () => findProgramByPublicKey(db, publicKey));
}

/** Every process reads the program afresh after a change. */
export function forgetProgram(store: SharedStore, program: Pick<ProgramRow, 'public_key'>): Promise<void> {
  return forgetEverywhere(store, PROGRAM_CACHE.name, program.public_key);
}
