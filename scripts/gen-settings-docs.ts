// Regenerates the platform settings table in docs/configuration.md from the schema (npm run docs:settings).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { withPlatformSettings } from '../src/core/settings-docs.js';

const path = join(import.meta.dirname, '..', 'docs', 'configuration.md');
await atomicWriteFile(path, withPlatformSettings(readFileSync(path, 'utf8')));
console.log('docs/configuration.md written');
