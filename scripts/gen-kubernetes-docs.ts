// Regenerates the example manifests in docs/kubernetes.md from runner/kubernetes (npm run docs:kubernetes).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { renderKubernetesDocs } from './render-kubernetes-docs.js';

const path = join(import.meta.dirname, '..', 'docs', 'kubernetes.md');
await atomicWriteFile(path, renderKubernetesDocs(await readFile(path, 'utf8')));
console.log('docs/kubernetes.md written');
