#!/usr/bin/env node
// The `svc` command: runs the TypeScript CLI through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
process.env.SVC_CLI_MAIN = '1';
await import('../src/cli.ts');
