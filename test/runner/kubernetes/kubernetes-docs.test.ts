import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUBERNETES_DOC_BLOCKS, renderKubernetesDocs } from '../../../scripts/render-kubernetes-docs.js';

const docs = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'kubernetes.md'), 'utf8');

describe('docs/kubernetes.md', () => {
  it('holds exactly what the generator makes (regenerate with npm run docs:kubernetes)', () => {
    expect(renderKubernetesDocs(docs)).toBe(docs);
  });

  it('refuses a page that lost a generated block, holds one twice or names an unknown one', () => {
    const stripped = docs.replace(/<!-- generated:service -->[\s\S]*?<!-- \/generated -->/, '');
    expect(() => renderKubernetesDocs(stripped)).toThrow(/lacks the generated blocks service/);
    expect(() => renderKubernetesDocs(`${docs}\n<!-- generated:service -->\n<!-- /generated -->\n`)).toThrow(/twice/);
    expect(() => renderKubernetesDocs(`${docs}\n<!-- generated:ingress -->\n<!-- /generated -->\n`)).toThrow(/unknown/);
    expect(Object.keys(KUBERNETES_DOC_BLOCKS).length).toBeGreaterThan(5);
  });

  it('shows no secret value, only placeholders', () => {
    const stringData = [...docs.matchAll(/stringData:\n((?: {2}.+\n)+)/g)].flatMap((m) => (m[1] ?? '').trim().split('\n'));
    expect(stringData.length).toBeGreaterThan(0);
    for (const line of stringData) expect(line).toMatch(/: <[^>]+>$/);
  });
});
