// The filesystem half of project deletion with an injected fs that fails at a chosen path: removal
// stops part-way with the error, runtime files ("releases") go last, a retry finishes the job,
// symbolic links are never followed.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { nodeDeletionFs, removeTree, verifyRealDirectory, type DeletionFs } from '../../src/projects/delete-project-fs.js';

let data: string;
beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'svc-delfs-'));
  const root = join(data, 'projects', 'prj_1');
  for (const dir of ['releases/rel_1', 'data', 'snapshots', 'backups']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'releases/rel_1/server.mjs'), 'x');
  writeFileSync(join(root, 'data/app.db'), 'db');
  writeFileSync(join(root, 'snapshots/rel_1.db'), 'snap');
  writeFileSync(join(root, 'backups/bak_1.svcbak'), 'bak');
});
afterEach(() => rmSync(data, { recursive: true, force: true }));

function failingAt(path: string): DeletionFs & { removed: string[] } {
  const removed: string[] = [];
  return {
    ...nodeDeletionFs,
    removed,
    async unlink(p) {
      if (p === path) throw Object.assign(new Error('EPERM: injected'), { code: 'EPERM' });
      await nodeDeletionFs.unlink(p);
      removed.push(p);
    },
  };
}

describe('project deletion filesystem steps', () => {
  it('fails part-way at the injected path, keeps the runtime files, and a retry completes', async () => {
    const root = join(data, 'projects', 'prj_1');
    const fs = failingAt(join(root, 'snapshots/rel_1.db'));
    const error = await removeTree(fs, root, ['releases']).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('EPERM');
    expect(existsSync(join(root, 'backups/bak_1.svcbak'))).toBe(false);
    expect(existsSync(join(root, 'data/app.db'))).toBe(false);
    expect(existsSync(join(root, 'snapshots/rel_1.db'))).toBe(true);
    expect(existsSync(join(root, 'releases/rel_1/server.mjs'))).toBe(true); // removed last, so still startable
    await removeTree(nodeDeletionFs, root, ['releases']);
    expect(existsSync(root)).toBe(false);
  });

  it('verifies real directories: a symlinked root or parent is refused; a missing root means done', async () => {
    const root = join(data, 'projects', 'prj_1');
    expect(await verifyRealDirectory(nodeDeletionFs, data, ['projects', 'prj_1'])).toBe(true);
    const elsewhere = join(data, 'elsewhere');
    rmSync(root, { recursive: true });
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'precious'), 'x');
    symlinkSync(elsewhere, root, 'dir');
    const error = await verifyRealDirectory(nodeDeletionFs, data, ['projects', 'prj_1']).catch((e: unknown) => e);
    expect(isSvcError(error, 'SVC_SITE_PATH_UNSAFE')).toBe(true);
    rmSync(root);
    expect(await verifyRealDirectory(nodeDeletionFs, data, ['projects', 'prj_1'])).toBe(false);
    const projects = join(data, 'projects');
    rmSync(projects, { recursive: true });
    symlinkSync(elsewhere, projects, 'dir');
    const parent = await verifyRealDirectory(nodeDeletionFs, data, ['projects', 'prj_1']).catch((e: unknown) => e);
    expect(isSvcError(parent, 'SVC_SITE_PATH_UNSAFE')).toBe(true);
    expect(existsSync(join(elsewhere, 'precious'))).toBe(true);
  });

  it('unlinks symbolic links inside the tree without following them', async () => {
    const root = join(data, 'projects', 'prj_1');
    const outside = join(data, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep'), 'x');
    symlinkSync(outside, join(root, 'data', 'link'), 'dir');
    await removeTree(nodeDeletionFs, root);
    expect(existsSync(root)).toBe(false);
    expect(existsSync(join(outside, 'keep'))).toBe(true);
  });
});
