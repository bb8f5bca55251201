// Upgrading a control database whose tokens predate token lineage: they keep working, with no parent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { applyMigrations, readAppliedVersions } from '../../src/core/db-migrations.js';
import { identityMigrations } from '../../src/identity/migrations.js';

describe('identity migration 2 (parent token)', () => {
  let dir: string;
  let db: ControlDb | undefined;
  afterEach(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds parent_id (NULL for existing tokens) with an index, and deleting a parent row deletes its children', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-identity-upgrade-'));
    db = openControlDb(join(dir, 'control.db'));
    applyMigrations(db, [identityMigrations[0]!]);
    db.exec(`
      INSERT INTO users (id, email, name, password_hash, personal_org_id, created_at) VALUES ('usr_1', 'old@example.com', NULL, 'x', NULL, 1);
      INSERT INTO access_tokens (id, token_hash, user_id, name, project_id, permissions, created_at, expires_at) VALUES ('tok_old', 'h_old', 'usr_1', 'old', NULL, '["read"]', 1, 9999999999999);`);

    expect(applyMigrations(db, identityMigrations).map((m) => m.version)).toEqual([2]);
    expect(readAppliedVersions(db).get('identity')).toBe(2);
    expect(db.prepare('SELECT parent_id FROM access_tokens WHERE id = ?').get('tok_old')).toEqual({ parent_id: null });
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'access_tokens'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(indexes).toContain('access_tokens_parent');

    db.prepare(
      "INSERT INTO access_tokens (id, token_hash, user_id, name, project_id, permissions, created_at, expires_at, parent_id) VALUES ('tok_child', 'h_child', 'usr_1', 'child', NULL, '[\"read\"]', 2, 9999999999999, 'tok_old')",
    ).run();
    expect(() =>
      db!
        .prepare(
          "INSERT INTO access_tokens (id, token_hash, user_id, name, project_id, permissions, created_at, expires_at, parent_id) VALUES ('tok_orphan', 'h_orphan', 'usr_1', 'orphan', NULL, '[]', 2, 1, 'tok_missing')",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    db.prepare('DELETE FROM access_tokens WHERE id = ?').run('tok_old');
    expect(db.prepare('SELECT COUNT(*) AS n FROM access_tokens').get()).toEqual({ n: 0 });
  });
});
