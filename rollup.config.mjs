import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';

/** Stamped into every payload as `v` (SVC_VERSION in script/src/build.d.ts), so the server knows which build sent it. */
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/**
 * Writes beside the built script what ingest serves from it
 * (ingest/src/resources/tracking/script-asset.ts): its precompressed copies (svc.js.gz,
 * svc.js.br; whichever the browser accepts is sent) and svc.json, naming the versioned copy of
 * this build (svc.<first 12 hex digits of its SHA-256>.js, served immutable) with its
 * Subresource Integrity hash. Prints the sizes (the budget is checked by npm test).
 */
const served = () => ({
  name: 'served',
  writeBundle(options) {
    const code = readFileSync(options.file);
    const gzip = gzipSync(code, { level: 9 });
    const brotli = brotliCompressSync(code, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: code.length },
    });
    writeFileSync(`${options.file}.gz`, gzip);
    writeFileSync(`${options.file}.br`, brotli);
    const versioned = `svc.${createHash('sha256').update(code).digest('hex').slice(0, 12)}.js`;
    const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
    writeFileSync(options.file.replace(/\.js$/, '.json'), `${JSON.stringify({ versioned, integrity }, null, 2)}\n`);
    console.log(
      `svc.js  raw ${code.length} B  gzip ${gzip.length} B  brotli ${brotli.length} B  versioned /${versioned}  integrity ${integrity}`,
    );
  },
});

export default {
  input: 'script/src/index.ts',
  output: { file: 'script/dist/svc.js', format: 'iife', strict: false, compact: true, generatedCode: 'es2015', sourcemap: false },
  plugins: [
    nodeResolve({ browser: true }),
    typescript({ tsconfig: 'script/tsconfig.json', include: ['script/src/**/*.ts'], outputToFilesystem: false }),
    terser({
      ecma: 2020,
      toplevel: true,
      compress: {
        global_defs: { SVC_VERSION: version },
        passes: 3,
        unsafe: true,
        unsafe_arrows: true,
        unsafe_methods: true,
        pure_getters: true,
        keep_fargs: false,
      },
      format: { comments: false, wrap_func_args: false },
    }),
    served(),
  ],
};
