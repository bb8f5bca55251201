// Making a sandbox's mount sources passable for the app's uid, on a real temp tree: only o+x, only
// between the mount and its root, and a clear refusal when a folder above the root blocks the way.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureTraversable } from '../../../runner/sandbox/ensure-traversable.js';

const mode = (path: string): number => statSync(path).mode & 0o7777;

describe('ensureTraversable', () => {
  let base: string;
  let platform: string;

  /** `base/<rel>` created with `perms` (chmod, so the umask does not interfere). */
  const dir = (rel: string, perms: number): string => {
    const path = join(base, rel);
    mkdirSync(path, { recursive: true });
    chmodSync(path, perms);
    return path;
  };

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'svc-trav-'));
    chmodSync(base, 0o755);
    platform = dir('platform', 0o700);
    dir('platform/projects', 0o750);
    dir('platform/projects/p1', 0o2750);
    dir('platform/projects/p1/data', 0o700);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('adds o+x (nothing else) to every folder from the mount’s parent up to the root, and not to the mount', () => {
    ensureTraversable(join(platform, 'projects', 'p1', 'data'), [platform]);
    expect({
      platform: mode(platform),
      projects: mode(join(platform, 'projects')),
      p1: mode(join(platform, 'projects', 'p1')),
      data: mode(join(platform, 'projects', 'p1', 'data')),
      base: mode(base),
    }).toEqual({ platform: 0o701, projects: 0o751, p1: 0o2751, data: 0o700, base: 0o755 });
  });

  it('leaves paths under no root alone, including a sibling whose name starts like the root', () => {
    const sibling = dir('platform-other/p1', 0o700);
    chmodSync(join(base, 'platform-other'), 0o700);
    const elsewhere = dir('elsewhere/x', 0o700);
    chmodSync(join(base, 'elsewhere'), 0o700);
    ensureTraversable(join(sibling, 'data'), [platform]);
    ensureTraversable(join(elsewhere, 'data'), [platform]);
    ensureTraversable(platform, [platform]); // the root itself is no mount below it
    expect([mode(join(base, 'platform-other')), mode(sibling), mode(join(base, 'elsewhere')), mode(elsewhere), mode(platform)]).toEqual([
      0o700, 0o700, 0o700, 0o700, 0o700,
    ]);
  });

  it('uses the root that holds the path when several are given', () => {
    const work = dir('work', 0o700);
    dir('work/runs', 0o700);
    ensureTraversable(join(work, 'runs', 'data'), [platform, work]);
    expect([mode(work), mode(join(work, 'runs')), mode(platform)]).toEqual([0o701, 0o701, 0o700]);
  });

  it('refuses with SVC_SANDBOX_START_FAILED, naming the folder, when one above the root is not passable — and never changes it', () => {
    chmodSync(base, 0o700);
    let error: unknown;
    try {
      ensureTraversable(join(platform, 'projects', 'p1', 'data'), [platform]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'SVC_SANDBOX_START_FAILED' });
    expect((error as Error).message).toContain(base);
    expect(mode(base)).toBe(0o700);
  });
});
