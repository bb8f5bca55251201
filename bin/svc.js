#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/cli-bundle/ by `npm install` (prepare) or `npm run build`
// (scripts/build-cli.ts). Node >= 22.1 can keep compiled code between runs; older Node skips it.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli-bundle/main.js');
process.exitCode = await main(process.argv.slice(2));
