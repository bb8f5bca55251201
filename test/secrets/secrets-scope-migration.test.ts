// Upgrading a control database whose secrets predate scopes: every row becomes a production secret,
// still decrypts under the unchanged production AAD, and keeps its project cascade; the preview
// scope starts empty.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { openControlDb } from '../../src/core/control-db.js';
import { applyMigrations, readAppliedVersions } from '../../src/core/db-migrations.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, controlMigrations, type ControlPlane } from '../../src/platform.js';
import { deriveKeyring, parseMasterKey } from '../../src/secrets/master-key.js';
import { sealBox } from '../../src/secrets/secret-box.js';
import { ORIGIN, START } from '../platform/harness.js';

describe('secrets migration 2 (scopes)', () => {
  let dir: string;
  let plane: ControlPlane | undefined;
  afterEach(async () => {
    await plane?.close();
    plane = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('turns existing secrets into production secrets that still decrypt, with the primary key, check and cascade of the new table', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-secrets-upgrade-'));
    const dataDir = join(dir, 'data');
    const key = randomBytes(32).toString('base64');
    const keyring = deriveKeyring(parseMasterKey(key), 'env');
    // A database written before scopes: secrets schema version 1, values sealed with the AAD of
    // that time (written out here byte for byte, not taken from the code under test).
    const old = openControlDb(join(dataDir, 'control.db'));
    applyMigrations(
      old,
      controlMigrations.filter((m) => !(m.scope === 'secrets' && m.version > 1)),
    );
    expect(readAppliedVersions(old).get('secrets')).toBe(1);
    const legacy = (projectId: string, name: string, value: string) =>
      sealBox(keyring.secretsKey, Buffer.from(value, 'utf8'), Buffer.from(`svc-secret/v1\0${projectId}\0${name}`, 'utf8'));
    old.exec(`
      INSERT INTO organizations (id, slug, name, personal, created_at) VALUES ('org_old', 'old', 'Old', 1, 1);
      INSERT INTO projects (id, slug, name, organization_id, created_at) VALUES ('prj_live', 'live', 'Live', 'org_old', 2), ('prj_other', 'other', 'Other', 'org_old', 3);`);
    old.prepare('INSERT INTO master_key_check (id, check_value, created_at) VALUES (1, ?, 1)').run(keyring.checkValue);
    const insert = old.prepare('INSERT INTO secrets (project_id, name, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    insert.run('prj_live', 'API_KEY', legacy('prj_live', 'API_KEY', 'live\nkey'), 10, 20);
    insert.run('prj_live', 'DB_URL', legacy('prj_live', 'DB_URL', 'postgres://live'), 11, 11);
    insert.run('prj_other', 'API_KEY', legacy('prj_other', 'API_KEY', 'other'), 12, 12);
    old.close();

    plane = await buildControlPlane({
      config: testPlatformConfig({ dataDir, publicUrl: ORIGIN, logLevel: 'silent', env: { SVC_PLATFORM_MASTER_KEY: key } }),
      clock: manualClock(START),
      logger: createLogger({ level: 'silent' }),
    });
    const db = plane.db;
    expect(readAppliedVersions(db).get('secrets')).toBe(2);
    expect(db.prepare('SELECT project_id, scope, name, created_at, updated_at FROM secrets ORDER BY project_id, name').all()).toEqual([
      { project_id: 'prj_live', scope: 'production', name: 'API_KEY', created_at: 10, updated_at: 20 },
      { project_id: 'prj_live', scope: 'production', name: 'DB_URL', created_at: 11, updated_at: 11 },
      { project_id: 'prj_other', scope: 'production', name: 'API_KEY', created_at: 12, updated_at: 12 },
    ]);
    expect(await plane.secrets.loadSecrets('prj_live')).toEqual({ API_KEY: 'live\nkey', DB_URL: 'postgres://live' });
    expect(await plane.secrets.loadSecrets('prj_other', 'production')).toEqual({ API_KEY: 'other' });
    expect(await plane.secrets.loadSecrets('prj_live', 'preview')).toEqual({});

    // Schema: scope column with its default and check, the three-part key, the project cascade.
    const scope = (db.prepare('PRAGMA table_info(secrets)').all() as { name: string; notnull: number; dflt_value: string | null; pk: number }[]).map((c) => ({
      name: c.name,
      notnull: c.notnull,
      dflt: c.dflt_value,
      pk: c.pk,
    }));
    expect(scope).toEqual([
      { name: 'project_id', notnull: 1, dflt: null, pk: 1 },
      { name: 'scope', notnull: 1, dflt: "'production'", pk: 2 },
      { name: 'name', notnull: 1, dflt: null, pk: 3 },
      { name: 'ciphertext', notnull: 1, dflt: null, pk: 0 },
      { name: 'created_at', notnull: 1, dflt: null, pk: 0 },
      { name: 'updated_at', notnull: 1, dflt: null, pk: 0 },
    ]);
    expect(db.prepare('PRAGMA foreign_key_list(secrets)').all()).toEqual([
      expect.objectContaining({ table: 'projects', from: 'project_id', to: 'id', on_delete: 'CASCADE' }),
    ]);
    expect((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'secrets'").get() as { sql: string }).sql).toMatch(/STRICT$/);
    // Nothing of the rebuild is left behind.
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'secrets%'").all()).toEqual([{ name: 'secrets' }]);
    expect(() =>
      db.prepare("INSERT INTO secrets (project_id, scope, name, ciphertext, created_at, updated_at) VALUES ('prj_live', 'staging', 'X', x'00', 1, 1)").run(),
    ).toThrow(/CHECK constraint/);
    expect(() =>
      db.prepare("INSERT INTO secrets (project_id, scope, name, ciphertext, created_at, updated_at) VALUES ('prj_gone', 'preview', 'X', x'00', 1, 1)").run(),
    ).toThrow(/FOREIGN KEY/);
    // The same name may now exist once per scope.
    db.prepare(
      "INSERT INTO secrets (project_id, scope, name, ciphertext, created_at, updated_at) VALUES ('prj_live', 'preview', 'API_KEY', x'00', 1, 1)",
    ).run();
    db.prepare("DELETE FROM projects WHERE id = 'prj_live'").run();
    expect(db.prepare('SELECT project_id FROM secrets').all()).toEqual([{ project_id: 'prj_other' }]);
  });
});
