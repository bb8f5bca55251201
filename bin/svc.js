#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
