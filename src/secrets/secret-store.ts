// Control-database rows of secrets (encrypted values) and the master key check value.
// Only this module touches these tables.
import type { Migration } from '../core/db-migrations.js';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import type { SecretInfo, SecretScope } from './contract.js';

/** Secrets tables; rows go with their project (ON DELETE CASCADE). */
export const secretsMigrations: readonly Migration[] = [
  {
    scope: 'secrets',
    version: 1,
    name: 'encrypted secrets, master key check value',
    up(db) {
      db.exec(`
        CREATE TABLE secrets (
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          ciphertext BLOB NOT NULL,
          created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, name)) STRICT;
        CREATE TABLE master_key_check (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          check_value TEXT NOT NULL,
          created_at INTEGER NOT NULL, rotated_at INTEGER) STRICT;`);
    },
  },
  {
    scope: 'secrets',
    version: 2,
    name: 'secret scopes: production and preview',
    up(db) {
      // SQLite cannot change a primary key in place: build the scoped table, copy every row as a
      // production secret (what they were), drop the old table and take its name. No table
      // references secrets, so the swap needs no foreign-key pause; the copy is checked against
      // projects like any insert. The migration runner wraps this in one transaction.
      db.exec(`
        CREATE TABLE secrets_scoped (
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          scope TEXT NOT NULL DEFAULT 'production' CHECK (scope IN ('production', 'preview')),
          name TEXT NOT NULL,
          ciphertext BLOB NOT NULL,
          created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, scope, name)) STRICT;
        INSERT INTO secrets_scoped (project_id, scope, name, ciphertext, created_at, updated_at)
          SELECT project_id, 'production', name, ciphertext, created_at, updated_at FROM secrets;
        DROP TABLE secrets;
        ALTER TABLE secrets_scoped RENAME TO secrets;`);
    },
  },
];

/** A secrets row. */
export interface SecretRow {
  project_id: string;
  scope: SecretScope;
  name: string;
  ciphertext: Buffer;
  created_at: number;
  updated_at: number;
}

type Db = Pick<FeatureContext, 'db'>;

/** The stored key check value, or null before the first start. */
export function readCheckValue(ctx: Db): string | null {
  const row = ctx.db.prepare('SELECT check_value FROM master_key_check WHERE id = 1').get() as { check_value: string } | undefined;
  return row?.check_value ?? null;
}

/** Record the key check value (first start) or replace it (rotation, inside its transaction). */
export function writeCheckValue(ctx: Db, checkValue: string, now: number): void {
  ctx.db
    .prepare(
      'INSERT INTO master_key_check (id, check_value, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET check_value = excluded.check_value, rotated_at = ?',
    )
    .run(checkValue, now, now);
}

/** Secrets of one scope of a project (with ciphertext), sorted by name. */
export function listSecretRows(ctx: Db, projectId: string, scope: SecretScope): SecretRow[] {
  return ctx.db.prepare('SELECT * FROM secrets WHERE project_id = ? AND scope = ? ORDER BY name').all(projectId, scope) as SecretRow[];
}

/** Every secret of every project and scope (rotation). */
export function allSecretRows(ctx: Db): SecretRow[] {
  return ctx.db.prepare('SELECT * FROM secrets ORDER BY project_id, scope, name').all() as SecretRow[];
}

/** One secret row, if present. */
export function findSecretRow(ctx: Db, projectId: string, scope: SecretScope, name: string): SecretRow | undefined {
  return ctx.db.prepare('SELECT * FROM secrets WHERE project_id = ? AND scope = ? AND name = ?').get(projectId, scope, name) as SecretRow | undefined;
}

/** Number of secrets in one scope of a project (the limit counts per scope). */
export function countSecrets(ctx: Db, projectId: string, scope: SecretScope): number {
  return (ctx.db.prepare('SELECT COUNT(*) AS n FROM secrets WHERE project_id = ? AND scope = ?').get(projectId, scope) as { n: number }).n;
}

/** Insert or replace a secret's ciphertext; returns whether it was new. Call inside a transaction. */
export function upsertSecretRow(ctx: Db, projectId: string, scope: SecretScope, name: string, ciphertext: Buffer, now: number): boolean {
  const existing = findSecretRow(ctx, projectId, scope, name);
  if (existing)
    ctx.db
      .prepare('UPDATE secrets SET ciphertext = ?, updated_at = ? WHERE project_id = ? AND scope = ? AND name = ?')
      .run(ciphertext, now, projectId, scope, name);
  else
    ctx.db
      .prepare('INSERT INTO secrets (project_id, scope, name, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(projectId, scope, name, ciphertext, now, now);
  return existing === undefined;
}

/** Replace only the ciphertext (rotation keeps timestamps). */
export function replaceCiphertext(ctx: Db, row: Pick<SecretRow, 'project_id' | 'scope' | 'name'>, ciphertext: Buffer): void {
  ctx.db.prepare('UPDATE secrets SET ciphertext = ? WHERE project_id = ? AND scope = ? AND name = ?').run(ciphertext, row.project_id, row.scope, row.name);
}

/** Delete a secret; false when it did not exist. */
export function deleteSecretRow(ctx: Db, projectId: string, scope: SecretScope, name: string): boolean {
  return ctx.db.prepare('DELETE FROM secrets WHERE project_id = ? AND scope = ? AND name = ?').run(projectId, scope, name).changes > 0;
}

/** Wire shape of a secret (never the value). */
export function toSecretInfo(row: Pick<SecretRow, 'name' | 'scope' | 'created_at' | 'updated_at'>): SecretInfo {
  return { name: row.name, scope: row.scope, createdAt: isoTime(row.created_at), updatedAt: isoTime(row.updated_at) };
}
