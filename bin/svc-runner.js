#!/usr/bin/env node
// Thin launcher for the runner node agent (compiled to dist/ by `npm install`).
import { main } from '../dist/runner/runner-main.js';

process.exitCode = await main(process.argv.slice(2));
