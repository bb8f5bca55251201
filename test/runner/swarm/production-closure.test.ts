// The platform's production dependency closure: Node's resolution order, optional and peer packages,
// no devDependencies; and on this installation it equals package-lock.json's non-dev entries.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { productionClosure, resolutionCandidates, type PackageManifest } from '../../../runner/swarm/production-closure.js';
import { repoRoot } from '../../support/repo-root.js';

const tree = (manifests: Record<string, PackageManifest>) => (dir: string) => manifests[dir] ?? null;

describe('resolutionCandidates', () => {
  it('looks in the nearest node_modules first and never in node_modules/node_modules', () => {
    expect(resolutionCandidates('', 'a')).toEqual(['node_modules/a']);
    expect(resolutionCandidates('node_modules/a/node_modules/@s/b', 'c')).toEqual([
      'node_modules/a/node_modules/@s/b/node_modules/c',
      'node_modules/a/node_modules/@s/node_modules/c',
      'node_modules/a/node_modules/c',
      'node_modules/c',
    ]);
  });
});

describe('productionClosure', () => {
  it('follows dependencies (nested before hoisted), installed optional and peer packages, never devDependencies', () => {
    const read = tree({
      '': { dependencies: { a: '1' }, optionalDependencies: { opt: '1', absent: '1' }, devDependencies: { dev: '1' } } as PackageManifest,
      'node_modules/a': { dependencies: { b: '2' }, peerDependencies: { peer: '1', 'absent-peer': '1' } },
      'node_modules/a/node_modules/b': { dependencies: { c: '1' } },
      'node_modules/b': {},
      'node_modules/c': {},
      'node_modules/opt': {},
      'node_modules/peer': {},
      'node_modules/dev': { dependencies: { c: '1' } },
    });
    expect(productionClosure(read)).toEqual(['node_modules/a', 'node_modules/a/node_modules/b', 'node_modules/c', 'node_modules/opt', 'node_modules/peer']);
  });
  it('a required dependency that is not installed fails with what to do', () => {
    expect(() => productionClosure(tree({ '': { dependencies: { a: '1' } }, 'node_modules/a': { dependencies: { gone: '1' } } }))).toThrow(
      /node_modules\/a needs gone.*npm ci --omit=dev/,
    );
  });
  it('a cycle ends', () => {
    expect(
      productionClosure(
        tree({ '': { dependencies: { a: '1' } }, 'node_modules/a': { dependencies: { b: '1' } }, 'node_modules/b': { dependencies: { a: '1' } } }),
      ),
    ).toEqual(['node_modules/a', 'node_modules/b']);
  });
  it("on this installation it is exactly package-lock.json's installed non-dev packages", () => {
    const root = repoRoot;
    const closure = productionClosure((dir) => {
      const file = join(root, dir, 'package.json');
      return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageManifest) : null;
    });
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const fromLock = Object.entries(lock.packages)
      .filter(([dir, entry]) => dir !== '' && !entry.dev && existsSync(join(root, dir, 'package.json')))
      .map(([dir]) => dir)
      .sort();
    expect(closure).toEqual(fromLock);
    expect(closure).toContain('node_modules/better-sqlite3');
    expect(closure).not.toContain('node_modules/vitest');
  });
});
