import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../src/core/errors.js';

/** One migration file of a release: `NNNN_name.sql`, its version number, bytes' SHA-256 and text. */
export interface MigrationFile {
  version: number;
  /** The file name, e.g. `0002_add_orders.sql` (recorded in the history table). */
  name: string;
  /** Lower-case hex SHA-256 of the file's exact bytes. */
  checksum: string;
  sql: string;
}

const namePattern = /^(\d{4,9})_[A-Za-z0-9][A-Za-z0-9_.-]*\.sql$/;

/** Parse a migration file name into its version, or null when it does not follow `NNNN_name.sql`. */
export function parseMigrationName(name: string): number | null {
  const match = namePattern.exec(name);
  return match ? Number(match[1]) : null;
}

/** SHA-256 of migration bytes as lower-case hex. */
export function migrationChecksum(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Read the migrations directory of a release in version order. A missing directory means no
 * migrations. Files not ending in `.sql` are ignored; `.sql` files with another name shape,
 * non-regular files and duplicate version numbers are rejected.
 */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: MigrationFile[] = [];
  for (const entry of entries) {
    if (!entry.name.toLowerCase().endsWith('.sql')) continue;
    const version = parseMigrationName(entry.name);
    if (version === null)
      throw new SvcError('SVC_MIGRATION_INVALID_NAME', `Migration ${entry.name} is not named NNNN_name.sql`, { details: { file: entry.name } });
    if (!entry.isFile()) throw new SvcError('SVC_MIGRATION_INVALID_NAME', `Migration ${entry.name} is not a regular file`, { details: { file: entry.name } });
    const bytes = await readFile(join(dir, entry.name));
    files.push({ version, name: entry.name, checksum: migrationChecksum(bytes), sql: bytes.toString('utf8') });
  }
  files.sort((a, b) => a.version - b.version || a.name.localeCompare(b.name));
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.version === files[i - 1]!.version) {
      throw new SvcError('SVC_MIGRATION_OUT_OF_ORDER', `Migrations ${files[i - 1]!.name} and ${files[i]!.name} share version ${files[i]!.version}`, {
        details: { file: files[i]!.name },
      });
    }
  }
  return files;
}
