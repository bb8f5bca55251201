import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditMigrations } from '../../src/audit/migrations.js';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { openControlDb } from '../../src/core/control-db.js';
import { applyMigrations, readAppliedVersions } from '../../src/core/db-migrations.js';
import { createLogger } from '../../src/core/logger.js';
import { identityMigrations } from '../../src/identity/migrations.js';
import { projectsMigrations } from '../../src/projects/migrations.js';
import { buildControlPlane, controlMigrations, type ControlPlane } from '../../src/platform.js';
import { login, ORIGIN, START } from './harness.js';
import { hashPassword } from '../../src/identity/password-hash.js';

describe('upgrading an older control database', () => {
  let dir: string;
  let plane: ControlPlane | undefined;
  afterEach(async () => {
    await plane?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds organization attribution to audit events in place and backfills it from projects and recorded metadata', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-upgrade-'));
    const dataDir = join(dir, 'data');
    const path = join(dataDir, 'control.db');
    // A database written by the older schema: audit version 1 has no organization column.
    const old = openControlDb(path);
    applyMigrations(old, [...identityMigrations, ...projectsMigrations, auditMigrations[0]!]);
    const hash = await hashPassword('correct horse battery');
    old.exec(`
      INSERT INTO users (id, email, name, password_hash, personal_org_id, created_at) VALUES ('usr_old', 'old@example.com', NULL, '${hash}', 'org_old', 1);
      INSERT INTO organizations (id, slug, name, personal, created_at) VALUES ('org_old', 'old', 'Old', 1, 1);
      INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES ('org_old', 'usr_old', 'owner', 1);
      INSERT INTO projects (id, slug, name, organization_id, created_at) VALUES ('prj_live', 'live-site', 'Live', 'org_old', 2);
      INSERT INTO audit_events (id, kind, project_id, actor_type, actor_id, metadata, created_at) VALUES
        ('evt_1', 'project.create', 'prj_live', 'user', 'usr_old', '{}', 10),
        ('evt_2', 'project.create', 'prj_gone', 'user', 'usr_old', '{"organizationId":"org_old","slug":"gone"}', 11),
        ('evt_3', 'release.create', 'prj_gone', 'user', 'usr_old', '{}', 12),
        ('evt_4', 'project.delete', 'prj_gone', 'user', 'usr_old', '{"organizationId":"org_old"}', 13);
    `);
    expect(readAppliedVersions(old).get('audit')).toBe(1);
    old.close();

    plane = await buildControlPlane({
      config: testPlatformConfig({ dataDir, publicUrl: ORIGIN, logLevel: 'silent' }),
      clock: manualClock(START),
      logger: createLogger({ level: 'silent' }),
    });
    const versions = readAppliedVersions(plane.db);
    for (const m of controlMigrations) expect(versions.get(m.scope)).toBeGreaterThanOrEqual(m.version);
    const attributed = plane.db.prepare('SELECT id, organization_id FROM audit_events ORDER BY seq').all();
    expect(attributed).toEqual([
      { id: 'evt_1', organization_id: 'org_old' },
      { id: 'evt_2', organization_id: 'org_old' },
      { id: 'evt_3', organization_id: 'org_old' },
      { id: 'evt_4', organization_id: 'org_old' },
    ]);
    // Existing accounts keep working and the feed shows the history, deleted project included.
    const owner = await login(plane.app, 'old@example.com');
    const feed = (await plane.app.inject({ method: 'GET', url: '/api/audit', headers: { cookie: owner.cookie } })).json();
    expect(feed.events.map((e: { id: string }) => e.id)).toEqual(['evt_4', 'evt_3', 'evt_2', 'evt_1']);
    // And the log is append-only from now on.
    expect(() => plane!.db.prepare('DELETE FROM audit_events').run()).toThrow(/append-only/);
  });

  it('refuses a database written by a newer svc', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-upgrade-'));
    const dataDir = join(dir, 'data');
    const db = openControlDb(join(dataDir, 'control.db'));
    readAppliedVersions(db);
    db.prepare("INSERT INTO schema_version (scope, version, name, applied_at) VALUES ('identity', 99, 'future', 0)").run();
    db.close();
    await expect(
      buildControlPlane({ config: testPlatformConfig({ dataDir, logLevel: 'silent' }), logger: createLogger({ level: 'silent' }) }),
    ).rejects.toMatchObject({ code: 'SVC_DB_SCHEMA_TOO_NEW' });
  });
});
