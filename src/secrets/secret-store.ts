// Control-database rows of secrets (encrypted values) and the master key check value.
// Only this module touches these tables.
import type { Migration } from '../core/db-migrations.js';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import type { SecretInfo } from './contract.js';

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
];

/** A secrets row. */
export interface SecretRow {
  project_id: string;
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

/** Secrets of a project (with ciphertext), sorted by name. */
export function listSecretRows(ctx: Db, projectId: string): SecretRow[] {
  return ctx.db.prepare('SELECT * FROM secrets WHERE project_id = ? ORDER BY name').all(projectId) as SecretRow[];
}

/** Every secret of every project (rotation). */
export function allSecretRows(ctx: Db): SecretRow[] {
  return ctx.db.prepare('SELECT * FROM secrets ORDER BY project_id, name').all() as SecretRow[];
}

/** One secret row, if present. */
export function findSecretRow(ctx: Db, projectId: string, name: string): SecretRow | undefined {
  return ctx.db.prepare('SELECT * FROM secrets WHERE project_id = ? AND name = ?').get(projectId, name) as SecretRow | undefined;
}

/** Number of secrets of a project. */
export function countSecrets(ctx: Db, projectId: string): number {
  return (ctx.db.prepare('SELECT COUNT(*) AS n FROM secrets WHERE project_id = ?').get(projectId) as { n: number }).n;
}

/** Insert or replace a secret's ciphertext; returns whether it was new. Call inside a transaction. */
export function upsertSecretRow(ctx: Db, projectId: string, name: string, ciphertext: Buffer, now: number): boolean {
  const existing = findSecretRow(ctx, projectId, name);
  if (existing) ctx.db.prepare('UPDATE secrets SET ciphertext = ?, updated_at = ? WHERE project_id = ? AND name = ?').run(ciphertext, now, projectId, name);
  else
    ctx.db
      .prepare('INSERT INTO secrets (project_id, name, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(projectId, name, ciphertext, now, now);
  return existing === undefined;
}

/** Replace only the ciphertext (rotation keeps timestamps). */
export function replaceCiphertext(ctx: Db, projectId: string, name: string, ciphertext: Buffer): void {
  ctx.db.prepare('UPDATE secrets SET ciphertext = ? WHERE project_id = ? AND name = ?').run(ciphertext, projectId, name);
}

/** Delete a secret; false when it did not exist. */
export function deleteSecretRow(ctx: Db, projectId: string, name: string): boolean {
  return ctx.db.prepare('DELETE FROM secrets WHERE project_id = ? AND name = ?').run(projectId, name).changes > 0;
}

/** Wire shape of a secret (never the value). */
export function toSecretInfo(row: Pick<SecretRow, 'name' | 'created_at' | 'updated_at'>): SecretInfo {
  return { name: row.name, createdAt: isoTime(row.created_at), updatedAt: isoTime(row.updated_at) };
}
