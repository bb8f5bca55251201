#!/usr/bin/env node
// Thin launcher for the ingress process that owns the public port (svc-platform starts it; see docs/operations.md).
import { main } from '../dist/src/ingress/edge/ingress-main.js';

await main(process.argv.slice(2));
