#!/usr/bin/env node
// The `svc` command: the compiled CLI when `npm run build` made one as new as the sources
// (ingest/build.mjs), else the TypeScript CLI through tsx, so that no build step is needed.
import { pathToFileURL } from 'node:url';
import { compiled } from '../build.mjs';

process.env.SVC_CLI_MAIN = '1';
const cli = compiled('cli');
if (cli) {
  await import(pathToFileURL(cli).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
