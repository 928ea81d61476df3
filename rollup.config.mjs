import { readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';

/** Stamped into every payload as `v` (SVC_VERSION in script/src/build.d.ts), so the server knows which build sent it. */
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** Prints the built script's raw, gzip and brotli sizes (the budget is checked by npm test). */
const sizes = () => ({
  name: 'sizes',
  writeBundle(options) {
    const code = readFileSync(options.file);
    const kb = (n) => `${n} B`;
    console.log(
      `svc.js  raw ${kb(code.length)}  gzip ${kb(gzipSync(code, { level: 9 }).length)}  brotli ${kb(brotliCompressSync(code).length)}`,
    );
  },
});

export default {
  input: 'script/src/index.ts',
  output: { file: 'script/dist/svc.js', format: 'iife', strict: false, compact: true, generatedCode: 'es2015', sourcemap: false },
  plugins: [
    nodeResolve({ browser: true }),
    typescript({ tsconfig: 'script/tsconfig.json', include: ['script/src/**/*.ts'], outputToFilesystem: false }),
    terser({ ecma: 2020, toplevel: true, compress: { global_defs: { SVC_VERSION: version }, passes: 3, unsafe: true, unsafe_arrows: true, unsafe_methods: true, pure_getters: true, keep_fargs: false }, format: { comments: false, wrap_func_args: false } }),
    sizes(),
  ],
};
