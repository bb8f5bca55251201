// Project uids: allocated once per project, in order from the base, never handed to a second project.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { applyMigrations } from '../../src/core/db-migrations.js';
import { projectsMigrations } from '../../src/projects/migrations.js';
import { DEFAULT_PROJECT_UID_BASE, projectUid } from '../../src/projects/project-uid.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function db(): ControlDb {
  const dir = mkdtempSync(join(tmpdir(), 'svc-uid-'));
  dirs.push(dir);
  const handle = openControlDb(join(dir, 'control.db'));
  handle.exec('CREATE TABLE organizations (id TEXT PRIMARY KEY) STRICT');
  applyMigrations(handle, projectsMigrations);
  return handle;
}

describe('projectUid', () => {
  it('allocates from the base in order and returns the same uid every time', () => {
    const ctx = { db: db(), clock: { now: () => 1 } };
    expect(projectUid(ctx, 'prj_a')).toBe(DEFAULT_PROJECT_UID_BASE);
    expect(projectUid(ctx, 'prj_b')).toBe(DEFAULT_PROJECT_UID_BASE + 1);
    expect(projectUid(ctx, 'prj_a')).toBe(DEFAULT_PROJECT_UID_BASE);
  });

  it('never hands a deleted project’s uid to a new project', () => {
    const ctx = { db: db(), clock: { now: () => 1 } };
    projectUid(ctx, 'prj_a');
    const b = projectUid(ctx, 'prj_b');
    ctx.db.prepare("DELETE FROM projects WHERE id = 'prj_b'").run();
    expect(projectUid(ctx, 'prj_c')).toBe(b + 1);
  });

  it('honours a configured base (SVC_SANDBOX_UID_BASE)', () => {
    const ctx = { db: db(), clock: { now: () => 1 } };
    expect(projectUid(ctx, 'prj_a', 500_000)).toBe(500_000);
    expect(projectUid(ctx, 'prj_b', 500_000)).toBe(500_001);
  });
});
