import type { Db } from '../../db/database.js';
import type { SharedStore } from '../../store/index.js';
import { createLocalCache, forgetEverywhere } from '../../store/local-cache.js';
import type { EngineFlow } from '../commissions/engine.js';
import { activeFlows } from './flows.repository.js';
import type { FlowTrigger } from './flows.schema.js';

const FLOW_CACHE = { name: 'flows', max: 10_000, ttlMs: 60_000 };

/** A program's active flows for a trigger, oldest first. */
export type FlowSource = (programId: string, trigger: FlowTrigger) => Promise<EngineFlow[]>;

/** The active flows of each program, in process: every payment reads them. */
export function cachedFlows(db: Db, store: SharedStore): FlowSource {
  const cache = createLocalCache<EngineFlow[]>(store, FLOW_CACHE);
  return async (programId, trigger) => {
    const flows = await cache.get(programId, () => activeFlows(db, programId));
    return (flows ?? []).filter((f) => f.trigger === trigger);
  };
}

/** Every process reads the program's flows afresh after a change. */
export function forgetFlows(store: SharedStore, programId: string): Promise<void> {
  return forgetEverywhere(store, FLOW_CACHE.name, programId);
}
