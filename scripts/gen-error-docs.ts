// Regenerates docs/errors.md from the error registry (npm run docs:errors).
import { join } from 'node:path';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { renderErrorDocs } from '../src/core/error-docs.js';

await atomicWriteFile(join(import.meta.dirname, '..', 'docs', 'errors.md'), renderErrorDocs());
console.log('docs/errors.md written');
