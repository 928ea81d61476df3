import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// Unit tests of the browser script (script/src) on happy-dom, and the size budget of the built
// script/dist/svc.js. From the repository root:
//   npm run build && npx vitest run --config script/vitest.config.ts
export default defineConfig({
  // The build constant rollup.config.mjs stamps into the bundle, for the source modules.
  define: { SVC_VERSION: JSON.stringify(version) },
  test: {
    name: 'script',
    root: new URL('..', import.meta.url).pathname,
    include: ['script/test/**/*.test.ts'],
    environment: 'happy-dom',
    environmentOptions: {
      happyDOM: {
        url: 'http://localhost:3000/',
        // Script tags in the tests only carry data-* settings: happy-dom must not fetch or run them.
        settings: { disableJavaScriptFileLoading: true, handleDisabledFileLoadingAsSuccess: true, disableCSSFileLoading: true },
      },
    },
    testTimeout: 10_000,
  },
});
