// Handing a project's writable tree to its uid, on real files: everything below changes owner, and a
// symbolic link an app planted changes itself, never what it points to.
import { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grantTree } from '../../../runner/sandbox/grant-tree.js';
import { requireComponents, rootComponent } from '../../support/require-components.js';

// Changing a file's owner to another uid takes root (CAP_CHOWN): skipped elsewhere, a failure under CI.
const rootGate = requireComponents('grantTree', [rootComponent()]);
const UID = 210_777;

const owner = (path: string): string => {
  const s = lstatSync(path);
  return `${s.uid}:${s.gid}`;
};

describe.skipIf(rootGate.skip)('grantTree', () => {
  beforeAll(() => rootGate.assertPresent());
  let base: string;
  let data: string;
  let outside: string;

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'svc-grant-'));
    data = join(base, 'data');
    outside = join(base, 'outside');
    mkdirSync(join(data, 'db', 'deep'), { recursive: true });
    writeFileSync(join(data, 'db', 'app.db'), 'x');
    writeFileSync(join(data, 'db', 'deep', 'wal'), 'x');
    mkdirSync(outside);
    writeFileSync(join(outside, 'platform.key'), 'x');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('gives uid:uid to the directory and every entry below it', () => {
    grantTree(data, UID);
    for (const path of [data, join(data, 'db'), join(data, 'db', 'app.db'), join(data, 'db', 'deep'), join(data, 'db', 'deep', 'wal')]) {
      expect(owner(path), path).toBe(`${UID}:${UID}`);
    }
    expect(owner(outside)).toBe('0:0');
  });

  it('changes a planted link to /etc/passwd itself and leaves /etc/passwd alone', () => {
    const before = statSync('/etc/passwd');
    symlinkSync('/etc/passwd', join(data, 'passwd-link'));
    grantTree(data, UID);
    expect(owner(join(data, 'passwd-link'))).toBe(`${UID}:${UID}`);
    const after = statSync('/etc/passwd');
    expect({ uid: after.uid, gid: after.gid, mode: after.mode, ctimeMs: after.ctimeMs }).toEqual({
      uid: before.uid,
      gid: before.gid,
      mode: before.mode,
      ctimeMs: before.ctimeMs,
    });
  });

  it('never descends through a link to a folder outside the tree', () => {
    symlinkSync(outside, join(data, 'db', 'escape'));
    grantTree(data, UID);
    expect(owner(join(data, 'db', 'escape'))).toBe(`${UID}:${UID}`);
    expect([owner(outside), owner(join(outside, 'platform.key'))]).toEqual(['0:0', '0:0']);
  });

  it('takes back entries the control plane wrote meanwhile, and leaves owned ones untouched', () => {
    grantTree(data, UID);
    const owned = lstatSync(join(data, 'db', 'app.db')).ctimeMs;
    writeFileSync(join(data, 'db', 'restored.db'), 'x'); // as root, like a restore
    grantTree(data, UID);
    expect(owner(join(data, 'db', 'restored.db'))).toBe(`${UID}:${UID}`);
    // An unneeded chown would still bump ctime: none happened for what was already the app's.
    expect(lstatSync(join(data, 'db', 'app.db')).ctimeMs).toBe(owned);
  });

  it('does nothing for a tree that is gone', () => {
    expect(() => grantTree(join(base, 'missing'), UID)).not.toThrow();
  });
});
