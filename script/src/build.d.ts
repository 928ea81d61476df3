/** The package version, stamped into the bundle at build time (rollup.config.mjs) and defined for the tests (vitest.config.ts). */
declare const SVC_VERSION: string;
