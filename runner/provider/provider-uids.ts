// The unprivileged uid each project's sandboxed apps run under on a root runner node, kept in the
// node's fence database: allocated once, in order, never reused (rows are never deleted), so files a
// project leaves behind on the node can never become another project's.
import type Database from 'better-sqlite3';
import { SvcError } from '../../src/core/errors.js';

/** The highest uid handed out (2^31 - 2): a positive signed 32-bit id for every tool, far from the kernel's "no uid". */
export const MAX_PROJECT_UID = 2_147_483_646;

export const PROVIDER_UIDS_TABLE = `CREATE TABLE IF NOT EXISTS provider_uids (
  project_id TEXT PRIMARY KEY, uid INTEGER NOT NULL UNIQUE, created_at INTEGER NOT NULL)`;

/** Pure: the next uid after the highest one handed out so far (null: none yet), never below `base`. */
export function nextProjectUid(top: number | null, base: number): number {
  const uid = Math.max(base, (top ?? base - 1) + 1);
  if (uid > MAX_PROJECT_UID) throw new SvcError('SVC_SANDBOX_CONFIG', `No project uid is left above ${top ?? base} (SVC_SANDBOX_UID_BASE ${base})`);
  return uid;
}

/** The project's uid, allocating the next one in one immediate transaction on first use. */
export function allocateProjectUid(db: Database.Database, projectId: string, base: number, now: number): number {
  return db
    .transaction((): number => {
      const existing = db.prepare('SELECT uid FROM provider_uids WHERE project_id = ?').get(projectId) as { uid: number } | undefined;
      if (existing) return existing.uid;
      const { top } = db.prepare('SELECT max(uid) AS top FROM provider_uids').get() as { top: number | null };
      const uid = nextProjectUid(top, base);
      db.prepare('INSERT INTO provider_uids (project_id, uid, created_at) VALUES (?, ?, ?)').run(projectId, uid, now);
      return uid;
    })
    .immediate();
}
