import { defineConfig } from 'vitest/config';

// Browser tests in a second engine, WebKitGTK (e2e/README.md#webkit), against the built
// script/dist/svc.js. From the repository root, after `npm run build`:
//   tsx e2e/support/ensure-webkit.ts && npx vitest run --config e2e/webkit/vitest.config.ts
export default defineConfig({
  test: {
    name: 'webkit',
    root: new URL('../..', import.meta.url).pathname,
    include: ['e2e/webkit/**/*.test.ts'],
    environment: 'node',
    // Starting MiniBrowser under Xvfb takes seconds, more on a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
