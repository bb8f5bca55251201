// The handoff's small parts: the `--handoff` flag, which successor entries are acceptable, and the
// build digest a control plane compares with the running ingress's.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { acceptableEntry } from '../../../src/ingress/edge/handoff.js';
import { digestModules, ingressBuild, ingressEntry } from '../../../src/ingress/edge/ingress-build.js';
import { parseIngressArgs } from '../../../src/ingress/edge/ingress-main.js';
import { repoRoot } from '../../support/repo-root.js';

it('parses --handoff (off by default)', () => {
  const base = ['--listen', '127.0.0.1:0', '--data', '/tmp/x', '--hold-ms', '100'];
  expect(parseIngressArgs(base)).toMatchObject({ handoff: false, drainMs: 10_000, listen: { host: '127.0.0.1', port: 0, spec: '127.0.0.1:0' } });
  expect(parseIngressArgs([...base, '--handoff', '--drain-ms', '500'])).toMatchObject({ handoff: true, drainMs: 500 });
});

it('accepts only an absolute path to an ingress entry that exists', () => {
  expect(acceptableEntry(ingressEntry())).toBe(true);
  expect(acceptableEntry(join(repoRoot, 'bin/svc-ingress.js'))).toBe(true);
  expect(acceptableEntry('src/ingress/edge/ingress-main.ts')).toBe(false);
  expect(acceptableEntry(join(repoRoot, 'bin/svc-platform.js'))).toBe(false);
  expect(acceptableEntry(join(repoRoot, 'nowhere/ingress-main.js'))).toBe(false);
});

it('the build digest covers the ingress modules: same code, same digest; any change, another', async () => {
  expect(ingressBuild()).toBe(digestModules([join(repoRoot, 'src/ingress'), join(repoRoot, 'src/ingress/edge')], '.ts'));
  expect(ingressBuild()).toMatch(/^[0-9a-f]{16}$/);
  const dir = await mkdtemp(join(tmpdir(), 'svc-build-'));
  try {
    await writeFile(join(dir, 'a.js'), 'one');
    await writeFile(join(dir, 'a.d.ts'), 'types');
    const first = digestModules([dir], '.js');
    await writeFile(join(dir, 'a.d.ts'), 'other types');
    await writeFile(join(dir, 'notes.md'), 'ignored');
    expect(digestModules([dir], '.js')).toBe(first);
    await writeFile(join(dir, 'a.js'), 'two');
    expect(digestModules([dir], '.js')).not.toBe(first);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
