// Project uids of a runner node: the pure next-uid rule as a table, and allocation in the real fence database.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { FenceStore } from '../../../runner/provider/fence-store.js';
import { MAX_PROJECT_UID, nextProjectUid } from '../../../runner/provider/provider-uids.js';

describe('nextProjectUid', () => {
  it.each([
    ['first uid is the base', null, 200_000, 200_000],
    ['the one after the highest', 200_004, 200_000, 200_005],
    ['a raised base skips ahead', 200_004, 300_000, 300_000],
    ['a lowered base never reuses a uid', 200_004, 100_000, 200_005],
    ['the last uid there is', MAX_PROJECT_UID - 1, 200_000, MAX_PROJECT_UID],
  ] as const)('%s', (_name, top, base, expected) => {
    expect(nextProjectUid(top, base)).toBe(expected);
  });

  it('refuses to hand out a uid past the last one', () => {
    expect(() => nextProjectUid(MAX_PROJECT_UID, 200_000)).toThrow(expect.objectContaining({ code: 'SVC_SANDBOX_CONFIG' }));
  });
});

describe('FenceStore.projectUid', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('allocates once per project, in order, keeps uids across reopening and never reuses one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-provider-uids-'));
    dirs.push(dir);
    const path = join(dir, 'fences.db');
    const store = new FenceStore(path);
    expect(store.projectUid('prj_a', 200_000, 1)).toBe(200_000);
    expect(store.projectUid('prj_b', 200_000, 2)).toBe(200_001);
    expect(store.projectUid('prj_a', 200_000, 3)).toBe(200_000);
    store.close();

    const reopened = new FenceStore(path);
    expect(reopened.projectUid('prj_b', 200_000)).toBe(200_001);
    expect(reopened.projectUid('prj_c', 200_000)).toBe(200_002);
    reopened.close();

    // A uid belongs to one project for good: the table refuses a second owner.
    const db = new Database(path);
    try {
      expect(() => db.prepare('INSERT INTO provider_uids (project_id, uid, created_at) VALUES (?, ?, ?)').run('prj_d', 200_001, 0)).toThrow(/UNIQUE/);
      expect(db.prepare('SELECT project_id, uid FROM provider_uids ORDER BY uid').all()).toEqual([
        { project_id: 'prj_a', uid: 200_000 },
        { project_id: 'prj_b', uid: 200_001 },
        { project_id: 'prj_c', uid: 200_002 },
      ]);
    } finally {
      db.close();
    }
  });
});
