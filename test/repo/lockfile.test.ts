// package-lock.json is complete and in step with package.json, so `npm ci` on a clean clone installs
// it and `npm install` leaves it as committed. A lockfile once missed the optional per-platform
// packages of rollup and unrs-resolver (written from a tree npm had filtered by os/cpu); the next
// `npm install` added hundreds of lines. Both npm runs here are offline with an empty cache: a
// complete lockfile needs nothing from the registry, so any fetch fails the test.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/repo-root.js';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** Where Node would find `name` from the package at `from` (a lockfile key), or null when the lockfile has none. */
function resolveLocked(packages: Lockfile['packages'], from: string, name: string): string | null {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent < 0 ? '' : base.slice(0, parent);
  }
}

/** Optional dependencies the lockfile declares but does not lock (npm adds them on the next install). */
function unlockedOptionals(lock: Lockfile): string[] {
  return Object.entries(lock.packages).flatMap(([key, entry]) =>
    Object.keys(entry.optionalDependencies ?? {})
      .filter((name) => resolveLocked(lock.packages, key, name) === null)
      .map((name) => `${key || '(root)'} -> ${name}`),
  );
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Run npm offline with an empty cache in a copy of package.json and package-lock.json. */
function npmOffline(args: string[]): { dir: string; status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lockfile-'));
  scratch.push(dir);
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(repoRoot, file), join(dir, file));
  const run = spawnSync('npm', [...args, '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--cache', join(dir, '.npm-cache')], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return {
    dir,
    status: run.status,
    output: `${run.stdout}${run.stderr}`
      .split('\n')
      .filter((line) => !line.includes('EBADENGINE'))
      .join('\n')
      .slice(-2000),
  };
}

describe('package-lock.json', () => {
  it('finds optional packages a lockfile declares but does not lock', () => {
    const lock: Lockfile = {
      lockfileVersion: 3,
      packages: {
        '': {},
        'node_modules/rollup': { optionalDependencies: { '@rollup/rollup-linux-x64-gnu': '4.0.0', '@rollup/rollup-darwin-arm64': '4.0.0', fsevents: '2.0.0' } },
        'node_modules/@rollup/rollup-linux-x64-gnu': {},
        'node_modules/vite/node_modules/rollup': { optionalDependencies: { fsevents: '2.0.0' } },
        'node_modules/fsevents': {},
      },
    };
    expect(unlockedOptionals(lock)).toEqual(['node_modules/rollup -> @rollup/rollup-darwin-arm64']);
  });

  it('is a version 3 lockfile that locks every optional platform package', () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as Lockfile;
    expect(lock.lockfileVersion).toBe(3);
    expect(unlockedOptionals(lock)).toEqual([]);
  });

  it('installs with npm ci and stays as committed after npm install, without the registry', () => {
    const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim();
    const ci = npmOffline(['ci', '--dry-run']);
    expect(ci.status, `npm ${npm} ci refuses the committed lockfile:\n${ci.output}`).toBe(0);
    const install = npmOffline(['install', '--package-lock-only']);
    expect(install.status, `npm ${npm} install needs the registry to complete the lockfile:\n${install.output}`).toBe(0);
    const rewritten = readFileSync(join(install.dir, 'package-lock.json'), 'utf8');
    expect(
      rewritten === readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'),
      `npm ${npm} install rewrites package-lock.json: regenerate it with npm 11 (npm install) and commit it`,
    ).toBe(true);
  });
});
