import { fileURLToPath } from 'node:url';

/**
 * The repository's root, from which svc finds the files it serves (the built script, the pages'
 * stylesheets). This module sits two levels below it, as the compiled service does
 * (`ingest/dist/`, ingest/build.mjs), so one relative path holds for both ways of running.
 */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Whether this process runs the compiled service rather than the TypeScript sources through tsx. */
export const RUNS_COMPILED = !import.meta.url.endsWith('.ts');
