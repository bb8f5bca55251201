// Opening a database: pragmas and file-backed defaults (WAL, synchronous FULL, integrity check, 0600
// permissions, busy timeout, cross-process polling), schema tables and indexes, and row revalidation.
import { randomFillSync } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { RuntimeError } from '../errors.js';
import type { Schema } from '../schema/define-schema.js';
import { AppDatabase } from './app-database.js';
import { META_STATEMENTS } from './commit-log.js';
import { revalidateRows } from './revalidate-rows.js';
import { createTableStatements, quoteName, wantedIndexNames } from './table-sql.js';

/** Options of openDatabase; every field has a documented default (docs/runtime.md). */
export interface OpenDatabaseOptions {
  /** File path; omitted or ':memory:' gives an in-memory database. */
  path?: string;
  /** Write-ahead log (default true for files). */
  wal?: boolean;
  /** Milliseconds to wait for another process's lock (default 5000). */
  busyTimeout?: number;
  /** Cross-process change polling interval in ms for files (default 250; false turns it off). */
  pollIntervalMs?: number | false;
  /** Run PRAGMA integrity_check at open for files (default true). */
  integrityCheck?: boolean;
  now?: () => number;
  randomId?: () => string;
  onListenerError?: (error: unknown) => void;
}

// Ids draw from a pool refilled 4 KiB at a time: one CSPRNG call per 341 ids instead of one per insert
// (the per-call randomBytes was ~5% of a mutation's CPU).
const idPool = Buffer.alloc(12 * 341);
let idPoolOffset = idPool.length;

/** 96 random bits as 20 base-36 characters. */
export function randomId(): string {
  if (idPoolOffset + 12 > idPool.length) {
    randomFillSync(idPool);
    idPoolOffset = 0;
  }
  const hex = idPool.toString('hex', idPoolOffset, idPoolOffset + 12);
  idPoolOffset += 12;
  return BigInt(`0x${hex}`).toString(36).padStart(20, '0');
}

/** Open (or create) the app database for a schema; throws RuntimeError on corrupt files or rows that no longer fit the schema. */
export function openDatabase(schema: Schema, options: OpenDatabaseOptions = {}): AppDatabase {
  const path = options.path === undefined || options.path === ':memory:' ? null : options.path;
  let sqlite: Database.Database;
  try {
    // Create the file ourselves so it is private from the first byte.
    if (path !== null && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
    sqlite = new Database(path ?? ':memory:');
  } catch (error) {
    throw new RuntimeError('SVC_RUNTIME_DATABASE', `Cannot open database ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeout ?? 5000))}`);
    if (path !== null) {
      if (options.integrityCheck !== false) {
        const result = sqlite.pragma('integrity_check', { simple: true });
        if (result !== 'ok') throw new RuntimeError('SVC_RUNTIME_DATABASE', `Integrity check of ${path} failed: ${String(result)}`);
      }
      sqlite.pragma(`journal_mode = ${options.wal === false ? 'DELETE' : 'WAL'}`);
      sqlite.pragma('synchronous = FULL');
    }
    setUpTables(sqlite, schema);
    revalidateRows(sqlite, schema);
    if (path !== null) restrictPermissions(path);
  } catch (error) {
    sqlite.close();
    if (error instanceof RuntimeError) throw error;
    throw new RuntimeError('SVC_RUNTIME_DATABASE', `Cannot open database: ${(error as Error).message}`, { cause: error });
  }
  const db = new AppDatabase(sqlite, path, schema, {
    now: options.now ?? Date.now,
    randomId: options.randomId ?? randomId,
    onListenerError: options.onListenerError ?? ((error) => console.error('svc runtime: commit listener failed', error)),
  });
  if (path !== null && options.pollIntervalMs !== false) db.startPolling(options.pollIntervalMs ?? 250);
  return db;
}

function setUpTables(sqlite: Database.Database, schema: Schema): void {
  sqlite
    .transaction(() => {
      for (const statement of META_STATEMENTS) sqlite.exec(statement);
      const existing = sqlite.prepare<[string], { name: string; sql: string | null }>(
        `SELECT "name", "sql" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = ?`,
      );
      for (const [table, definition] of Object.entries(schema.tables)) {
        const statements = createTableStatements(table, definition);
        sqlite.exec(statements[0]!);
        const wanted = wantedIndexNames(table, definition);
        const expected = new Map(statements.slice(1).map((sql) => [indexNameOf(sql), sql.replace(' IF NOT EXISTS', '')]));
        for (const index of existing.all(table)) {
          // Drop our indexes the schema no longer declares or whose definition changed.
          if (!index.name.startsWith(`${table}__`)) continue;
          if (!wanted.has(index.name) || expected.get(index.name) !== index.sql) sqlite.exec(`DROP INDEX ${quoteName(index.name)}`);
        }
        for (const sql of statements.slice(1)) sqlite.exec(sql);
      }
    })
    .immediate();
}

function indexNameOf(createSql: string): string {
  return /INDEX IF NOT EXISTS "([^"]+)"/.exec(createSql)?.[1] ?? '';
}

function restrictPermissions(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}
