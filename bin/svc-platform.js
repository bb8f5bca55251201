#!/usr/bin/env node
// Thin launcher for the control plane (compiled to dist/ by `npm install`). The young generation is held
// at its initial size while the control plane loads and starts (src/core/startup-heap.ts), then released.
import { holdYoungGeneration } from '../dist/src/core/startup-heap.js';

const release = holdYoungGeneration();
try {
  const { main } = await import('../dist/src/platform-main.js');
  await main(process.argv.slice(2));
} finally {
  release();
}
