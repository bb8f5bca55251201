// A full disk at the project lock and at atomic writes: SVC_DISK_FULL (507), no temp file left
// behind, and the lock usable again once space is freed. On a real (tiny) filesystem.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atomicWriteFile, atomicWriteFileSync } from '../../src/core/atomic-write.js';
import { ProjectLocks } from '../../src/core/project-lock.js';
import { mountSmallFilesystem, type SmallFilesystem } from './small-filesystem.js';
import { skipOrFail } from '../support/require-components.js';

let fs: SmallFilesystem | null = null;
afterEach(() => {
  fs?.unmount();
  fs = null;
});

function smallFs(ctx: { skip: (note: string) => void }): SmallFilesystem {
  fs = mountSmallFilesystem('1m');
  if (!fs) skipOrFail(ctx, 'mount -t tmpfs is not permitted here');
  return fs;
}

const visible = (dir: string) => readdirSync(dir).filter((name) => name !== '.filler');

describe('disk full', () => {
  it('taking a project lock fails with SVC_DISK_FULL, leaves no temp file, and works once space is back', async (ctx) => {
    const small = smallFs(ctx);
    const dir = join(small.dir, 'locks');
    const locks = new ProjectLocks({ dir, onStaleLockRecovered: () => undefined });
    await locks.withLock('p1', 'deploy', async () => undefined); // the directory exists from here on
    small.fill();
    await expect(locks.acquire('p1', 'deploy')).rejects.toMatchObject({ code: 'SVC_DISK_FULL', status: 507 });
    expect(visible(dir)).toEqual([]);
    small.free();
    const handle = await locks.acquire('p1', 'deploy');
    expect(visible(dir)).toEqual(['p1.lock']);
    await handle.release();
  });

  it('atomic writes fail with SVC_DISK_FULL, keep the old file and leave no temp file', async (ctx) => {
    const small = smallFs(ctx);
    const path = join(small.dir, 'state.json');
    writeFileSync(path, 'old');
    small.fill();
    await expect(atomicWriteFile(path, 'x'.repeat(64 * 1024))).rejects.toMatchObject({ code: 'SVC_DISK_FULL' });
    expect(() => atomicWriteFileSync(path, 'x'.repeat(64 * 1024))).toThrow(expect.objectContaining({ code: 'SVC_DISK_FULL' }));
    await expect(atomicWriteFile(join(small.dir, 'sub', 'new.json'), 'x'.repeat(64 * 1024), { mkdirs: true })).rejects.toMatchObject({ code: 'SVC_DISK_FULL' });
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(visible(small.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(small.dir, 'sub')) ? readdirSync(join(small.dir, 'sub')) : []).toEqual([]);
  });
});
