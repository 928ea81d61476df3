/**
 * The size budget of the built script, gzip level 9, everything included: enforced by
 * test/size.test.ts in `npm test` and reported by `npm run bench`. Not part of the bundle.
 */
export const GZIP_BUDGET_BYTES = 1800;
