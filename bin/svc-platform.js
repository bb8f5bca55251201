#!/usr/bin/env node
// Thin launcher for the control plane (compiled to dist/ by `npm install`).
import { main } from '../dist/src/platform-main.js';

await main(process.argv.slice(2));
