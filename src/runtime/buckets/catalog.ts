// The bucket catalog (SQLite): authoritative for visibility, ownership, quota and the active generation of
// every object, plus open reservations and the garbage ledger. One file, owner-only, never a symlink.
import Database from 'better-sqlite3';
import { RuntimeError } from '../errors.js';
import { checkCatalogFile, restrictSidecars, secureCatalogFile, type CatalogIdentity } from './catalog-file.js';
import type { UsageCounts } from './effective-limits.js';

/** One published object (its current generation). */
export interface ObjectRow {
  readonly bucket: string;
  readonly owner: string;
  readonly key: string;
  readonly generation: number;
  readonly storageKey: string;
  readonly sha256: string;
  readonly contentType: string;
  readonly size: number;
  readonly publicId: string;
  readonly width: number | null;
  readonly height: number | null;
  readonly providerVersion: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One pending upload; its reserved counts hold quota until it commits, is cancelled or expires. */
export interface ReservationRow {
  readonly id: string;
  readonly bucket: string;
  readonly owner: string;
  readonly key: string;
  readonly length: number;
  readonly reservedObjects: number;
  readonly reservedBytes: number;
  readonly contentType: string;
  readonly sha256: string | null;
  /** Compare-and-set: the SHA-256 the current object must have at commit ('' = must not exist). */
  readonly ifSha256: string | null;
  readonly offset: number;
  readonly stagingId: string | null;
  readonly stagingState: string | null;
  readonly storageKey: string;
  readonly head: Buffer | null;
  readonly expiresAt: number;
  readonly createdAt: number;
}

/** A durable pending provider deletion. */
export interface GarbageRow {
  readonly id: number;
  readonly kind: 'object' | 'staging';
  readonly ref: string;
  readonly attempts: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bucket_contracts (name TEXT PRIMARY KEY NOT NULL, geometry TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS objects (
  bucket TEXT NOT NULL, owner TEXT NOT NULL, key TEXT NOT NULL, generation INTEGER NOT NULL,
  storage_key TEXT NOT NULL UNIQUE, sha256 TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL,
  public_id TEXT NOT NULL UNIQUE, width INTEGER, height INTEGER, provider_version TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (bucket, owner, key)) STRICT;
CREATE TABLE IF NOT EXISTS reservations (
  id TEXT PRIMARY KEY NOT NULL, bucket TEXT NOT NULL, owner TEXT NOT NULL, key TEXT NOT NULL, length INTEGER NOT NULL,
  reserved_objects INTEGER NOT NULL, reserved_bytes INTEGER NOT NULL, content_type TEXT NOT NULL, sha256 TEXT, if_sha256 TEXT,
  offset INTEGER NOT NULL DEFAULT 0, staging_id TEXT, staging_state TEXT, storage_key TEXT NOT NULL UNIQUE, head BLOB,
  expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS reservations_scope ON reservations (bucket, owner);
CREATE INDEX IF NOT EXISTS reservations_expiry ON reservations (expires_at);
CREATE TABLE IF NOT EXISTS garbage (
  id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, ref TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT, next_at INTEGER NOT NULL, created_at INTEGER NOT NULL) STRICT;
`;

const OBJECT_COLUMNS = `bucket, owner, key, generation, storage_key AS storageKey, sha256, content_type AS contentType, size, public_id AS publicId, width, height, provider_version AS providerVersion, created_at AS createdAt, updated_at AS updatedAt`;
const RESERVATION_COLUMNS = `id, bucket, owner, key, length, reserved_objects AS reservedObjects, reserved_bytes AS reservedBytes, content_type AS contentType, sha256, if_sha256 AS ifSha256, offset, staging_id AS stagingId, staging_state AS stagingState, storage_key AS storageKey, head, expires_at AS expiresAt, created_at AS createdAt`;

/** The opened catalog. Every method is synchronous (better-sqlite3); `transaction` runs BEGIN IMMEDIATE. */
export class Catalog {
  readonly path: string;
  readonly sqlite: Database.Database;
  private readonly identity: CatalogIdentity;

  constructor(path: string) {
    this.path = path;
    this.identity = secureCatalogFile(path);
    try {
      this.sqlite = new Database(path);
      this.sqlite.pragma('busy_timeout = 5000');
      this.sqlite.pragma('journal_mode = WAL');
      this.sqlite.pragma('synchronous = FULL');
      const check = this.sqlite.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`quick_check: ${String(check)}`);
      this.sqlite.exec(SCHEMA);
    } catch (error) {
      throw new RuntimeError('SVC_BUCKET_CONFIG', `Cannot open bucket catalog ${path}: ${(error as Error).message}`, { cause: error });
    }
    this.checkFile();
    restrictSidecars(path);
  }

  /** Throws SVC_BUCKET_CATALOG_UNSAFE when the catalog path was swapped (symlink, other file). */
  checkFile(): void {
    checkCatalogFile(this.path, this.identity);
  }

  /** Run `fn` in one IMMEDIATE transaction (serializes quota decisions across connections). */
  transaction<T>(fn: () => T): T {
    return this.sqlite.transaction(fn).immediate();
  }

  /** Stored variant geometry of a bucket (JSON) or undefined. */
  contract(bucket: string): string | undefined {
    return this.sqlite.prepare<[string], { geometry: string }>('SELECT geometry FROM bucket_contracts WHERE name = ?').get(bucket)?.geometry;
  }

  setContract(bucket: string, geometry: string): void {
    this.sqlite
      .prepare('INSERT INTO bucket_contracts (name, geometry) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET geometry = excluded.geometry')
      .run(bucket, geometry);
  }

  /** Whether a bucket holds objects or pending uploads. */
  hasData(bucket: string): boolean {
    return (
      this.sqlite.prepare('SELECT 1 FROM objects WHERE bucket = ? UNION ALL SELECT 1 FROM reservations WHERE bucket = ? LIMIT 1').get(bucket, bucket) !==
      undefined
    );
  }

  /** Stored and reserved counts over a scope (null bucket = whole deployment, null owner = whole bucket). */
  usage(bucket: string | null, owner: string | null): UsageCounts {
    const where = bucket === null ? '1' : owner === null ? 'bucket = @bucket' : 'bucket = @bucket AND owner = @owner';
    const params = { bucket, owner };
    const stored = this.sqlite.prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS b FROM objects WHERE ${where}`).get(params) as { n: number; b: number };
    const reserved = this.sqlite
      .prepare(`SELECT COALESCE(SUM(reserved_objects), 0) AS n, COALESCE(SUM(reserved_bytes), 0) AS b FROM reservations WHERE ${where}`)
      .get(params) as { n: number; b: number };
    return { objects: stored.n, bytes: stored.b, reservedObjects: reserved.n, reservedBytes: reserved.b };
  }

  object(bucket: string, owner: string, key: string): ObjectRow | undefined {
    return this.sqlite.prepare(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE bucket = ? AND owner = ? AND key = ?`).get(bucket, owner, key) as
      ObjectRow | undefined;
  }

  objectByPublicId(publicId: string): ObjectRow | undefined {
    return this.sqlite.prepare(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE public_id = ?`).get(publicId) as ObjectRow | undefined;
  }

  /** Objects of one partition in key order, keys starting with `prefix`, after the `after` key. */
  list(bucket: string, owner: string, prefix: string, after: string, limit: number): ObjectRow[] {
    return this.sqlite
      .prepare(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE bucket = ? AND owner = ? AND key > ? AND substr(key, 1, ?) = ? ORDER BY key LIMIT ?`)
      .all(bucket, owner, after, prefix.length, prefix, limit) as ObjectRow[];
  }

  /** Publish (insert or replace) the current generation of an object. */
  putObject(row: ObjectRow): void {
    this.sqlite
      .prepare(
        `INSERT INTO objects (bucket, owner, key, generation, storage_key, sha256, content_type, size, public_id, width, height, provider_version, created_at, updated_at)
         VALUES (@bucket, @owner, @key, @generation, @storageKey, @sha256, @contentType, @size, @publicId, @width, @height, @providerVersion, @createdAt, @updatedAt)
         ON CONFLICT (bucket, owner, key) DO UPDATE SET generation = excluded.generation, storage_key = excluded.storage_key, sha256 = excluded.sha256,
           content_type = excluded.content_type, size = excluded.size, width = excluded.width, height = excluded.height,
           provider_version = excluded.provider_version, updated_at = excluded.updated_at`,
      )
      .run(row);
  }

  deleteObject(bucket: string, owner: string, key: string): void {
    this.sqlite.prepare('DELETE FROM objects WHERE bucket = ? AND owner = ? AND key = ?').run(bucket, owner, key);
  }

  /** Record the provider version after a successful re-verification of the bytes. */
  setProviderVersion(storageKey: string, version: string): void {
    this.sqlite.prepare('UPDATE objects SET provider_version = ? WHERE storage_key = ?').run(version, storageKey);
  }

  insertReservation(row: ReservationRow): void {
    this.sqlite
      .prepare(
        `INSERT INTO reservations (id, bucket, owner, key, length, reserved_objects, reserved_bytes, content_type, sha256, if_sha256, offset, staging_id, staging_state, storage_key, head, expires_at, created_at)
         VALUES (@id, @bucket, @owner, @key, @length, @reservedObjects, @reservedBytes, @contentType, @sha256, @ifSha256, @offset, @stagingId, @stagingState, @storageKey, @head, @expiresAt, @createdAt)`,
      )
      .run(row);
  }

  reservation(id: string): ReservationRow | undefined {
    return this.sqlite.prepare(`SELECT ${RESERVATION_COLUMNS} FROM reservations WHERE id = ?`).get(id) as ReservationRow | undefined;
  }

  setStaging(id: string, stagingId: string, state: string): void {
    this.sqlite.prepare('UPDATE reservations SET staging_id = ?, staging_state = ? WHERE id = ?').run(stagingId, state, id);
  }

  /** Move the durable offset forward; false when another writer moved it first (offset compare-and-set). */
  advance(id: string, from: number, to: number, state: string, head: Buffer | null): boolean {
    // The staging bytes are already fsynced; losing this commit to a power cut only loses progress (the next
    // chunk truncates back to the older offset), so it skips the WAL fsync. Later FULL commits flush it too.
    this.sqlite.pragma('synchronous = NORMAL');
    try {
      const result = this.sqlite
        .prepare('UPDATE reservations SET offset = ?, staging_state = ?, head = ? WHERE id = ? AND offset = ?')
        .run(to, state, head, id, from);
      return result.changes === 1;
    } finally {
      this.sqlite.pragma('synchronous = FULL');
    }
  }

  deleteReservation(id: string): boolean {
    return this.sqlite.prepare('DELETE FROM reservations WHERE id = ?').run(id).changes === 1;
  }

  expiredReservations(now: number, limit = 100): ReservationRow[] {
    return this.sqlite
      .prepare(`SELECT ${RESERVATION_COLUMNS} FROM reservations WHERE expires_at <= ? ORDER BY expires_at LIMIT ?`)
      .all(now, limit) as ReservationRow[];
  }

  /** Staging ids and storage keys of every open reservation (orphan detection). */
  reservationRefs(): { stagingIds: Set<string>; storageKeys: Set<string> } {
    const rows = this.sqlite.prepare('SELECT staging_id AS s, storage_key AS k FROM reservations').all() as Array<{ s: string | null; k: string }>;
    return { stagingIds: new Set(rows.flatMap((r) => (r.s === null ? [] : [r.s]))), storageKeys: new Set(rows.map((r) => r.k)) };
  }

  /** Whether any object currently points at a storage key (never delete those). */
  isLive(storageKey: string): boolean {
    return this.sqlite.prepare('SELECT 1 FROM objects WHERE storage_key = ?').get(storageKey) !== undefined;
  }

  addGarbage(kind: GarbageRow['kind'], ref: string, now: number): void {
    this.sqlite.prepare('INSERT INTO garbage (kind, ref, next_at, created_at) VALUES (?, ?, ?, ?)').run(kind, ref, now, now);
  }

  dueGarbage(now: number, limit = 100): GarbageRow[] {
    return this.sqlite.prepare('SELECT id, kind, ref, attempts FROM garbage WHERE next_at <= ? ORDER BY id LIMIT ?').all(now, limit) as GarbageRow[];
  }

  garbageCount(): number {
    return (this.sqlite.prepare('SELECT COUNT(*) AS n FROM garbage').get() as { n: number }).n;
  }

  garbageDone(id: number): void {
    this.sqlite.prepare('DELETE FROM garbage WHERE id = ?').run(id);
  }

  garbageFailed(id: number, error: string, nextAt: number): void {
    this.sqlite.prepare('UPDATE garbage SET attempts = attempts + 1, last_error = ?, next_at = ? WHERE id = ?').run(error.slice(0, 500), nextAt, id);
  }

  close(): void {
    if (this.sqlite.open) this.sqlite.close();
  }
}
