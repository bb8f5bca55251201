// Control-database rows of releases, their pre-deploy snapshots and upload idempotency keys.
// Only this module touches these tables; every multi-row change is one SQLite transaction.
import type { Migration } from '../core/db-migrations.js';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { SvcError, errorCodes } from '../core/errors.js';
import { deployConfigSchema, type DeployConfig } from '../artifacts/index.js';
import type { RunningAppRecord } from '../../runner/release-driver.js';
import type { Release, ReleaseFailure, ReleaseStatus, ReleaseStep } from './contract.js';
import type { ReleaseRecord, ReleaseSetState, SnapshotRef } from './release-state.js';

/** Control tables of releases (projects rows are referenced, never written here). */
export const releasesMigrations: readonly Migration[] = [
  {
    scope: 'releases',
    version: 1,
    name: 'releases, snapshots, idempotency keys',
    up(db) {
      db.exec(`
        CREATE TABLE releases (
          id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('candidate','active','inactive','failed')),
          step TEXT,
          digest TEXT NOT NULL,
          gzip_bytes INTEGER NOT NULL, bundle_bytes INTEGER NOT NULL, file_count INTEGER NOT NULL,
          config TEXT NOT NULL,
          artifact_retained INTEGER NOT NULL DEFAULT 1,
          predecessor_id TEXT,
          restore_snapshot_id TEXT,
          run_record TEXT,
          failure_step TEXT, failure_code TEXT, failure_message TEXT,
          created_by_type TEXT NOT NULL, created_by_id TEXT NOT NULL, created_by_name TEXT,
          created_at INTEGER NOT NULL, activated_at INTEGER, finished_at INTEGER,
          UNIQUE (project_id, seq)) STRICT;
        CREATE UNIQUE INDEX releases_one_active ON releases (project_id) WHERE status = 'active';
        CREATE TABLE release_snapshots (
          id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          release_id TEXT NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
          path TEXT NOT NULL, size_bytes INTEGER NOT NULL, had_database INTEGER NOT NULL,
          created_at INTEGER NOT NULL, removed_at INTEGER) STRICT;
        CREATE INDEX release_snapshots_project ON release_snapshots (project_id);
        CREATE TABLE release_idempotency_keys (
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          key TEXT NOT NULL,
          digest TEXT NOT NULL,
          release_id TEXT NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (project_id, key)) STRICT;`);
    },
  },
  {
    scope: 'releases',
    version: 2,
    name: 'output tail of a failed release',
    up(db) {
      db.exec('ALTER TABLE releases ADD COLUMN failure_output TEXT');
    },
  },
];

/** A releases row. */
export interface ReleaseRow {
  id: string;
  project_id: string;
  seq: number;
  status: ReleaseStatus;
  step: ReleaseStep | null;
  digest: string;
  gzip_bytes: number;
  bundle_bytes: number;
  file_count: number;
  config: string;
  artifact_retained: number;
  predecessor_id: string | null;
  restore_snapshot_id: string | null;
  run_record: string | null;
  failure_step: ReleaseStep | null;
  failure_code: string | null;
  failure_message: string | null;
  /** JSON array of the output tail kept with a failure (null: none recorded). */
  failure_output: string | null;
  created_by_type: string;
  created_by_id: string;
  created_by_name: string | null;
  created_at: number;
  activated_at: number | null;
  finished_at: number | null;
}

/** A release_snapshots row. */
export interface SnapshotRow {
  id: string;
  project_id: string;
  release_id: string;
  path: string;
  size_bytes: number;
  had_database: number;
  created_at: number;
  removed_at: number | null;
}

type Ctx = Pick<FeatureContext, 'db' | 'clock' | 'ids'>;

/** Idempotency keys are kept at least this long (the CLI's attempt record lives 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The normalized deploy configuration of a release, re-validated as it is read back. */
export function releaseConfig(row: ReleaseRow): DeployConfig {
  return deployConfigSchema.parse(JSON.parse(row.config));
}

/** The recorded app of a release's last start (for re-adoption after a crash), if any. */
export function releaseRunRecord(row: ReleaseRow): RunningAppRecord | null {
  return row.run_record ? (JSON.parse(row.run_record) as RunningAppRecord) : null;
}

/** A release of a project, or undefined. */
export function findRelease(ctx: Ctx, projectId: string, releaseId: string): ReleaseRow | undefined {
  return ctx.db.prepare('SELECT * FROM releases WHERE id = ? AND project_id = ?').get(releaseId, projectId) as ReleaseRow | undefined;
}

/** A release by id alone (internal lookups: supervisor specs, recovery). */
export function getReleaseById(ctx: Ctx, releaseId: string): ReleaseRow | undefined {
  return ctx.db.prepare('SELECT * FROM releases WHERE id = ?').get(releaseId) as ReleaseRow | undefined;
}

/** A release of a project; SVC_RELEASE_NOT_FOUND when missing. */
export function getRelease(ctx: Ctx, projectId: string, releaseId: string): ReleaseRow {
  const row = findRelease(ctx, projectId, releaseId);
  if (!row) throw new SvcError('SVC_RELEASE_NOT_FOUND', `Release ${releaseId} does not exist in this project.`);
  return row;
}

/** Every release of a project, newest first. */
export function listReleases(ctx: Ctx, projectId: string): ReleaseRow[] {
  return ctx.db.prepare('SELECT * FROM releases WHERE project_id = ? ORDER BY seq DESC').all(projectId) as ReleaseRow[];
}

/** The active release of a project, if any. */
export function activeReleaseRow(ctx: Ctx, projectId: string): ReleaseRow | undefined {
  return ctx.db.prepare("SELECT * FROM releases WHERE project_id = ? AND status = 'active'").get(projectId) as ReleaseRow | undefined;
}

/** Candidates of every project (after a crash these are interrupted transactions). */
export function listCandidates(ctx: Ctx): ReleaseRow[] {
  return ctx.db.prepare("SELECT * FROM releases WHERE status = 'candidate' ORDER BY created_at").all() as ReleaseRow[];
}

/** Every active release of every project. */
export function listActiveReleases(ctx: Ctx): ReleaseRow[] {
  return ctx.db.prepare("SELECT * FROM releases WHERE status = 'active'").all() as ReleaseRow[];
}

/** Snapshots of a project that still exist on disk. */
export function listKeptSnapshots(ctx: Ctx, projectId: string): SnapshotRow[] {
  return ctx.db.prepare('SELECT * FROM release_snapshots WHERE project_id = ? AND removed_at IS NULL').all(projectId) as SnapshotRow[];
}

/** A snapshot row by id. */
export function findSnapshot(ctx: Ctx, id: string | null): SnapshotRow | undefined {
  if (id === null) return undefined;
  return ctx.db.prepare('SELECT * FROM release_snapshots WHERE id = ?').get(id) as SnapshotRow | undefined;
}

/** The snapshot taken during a release's own deploy (step 6), if it is still kept. */
export function snapshotOfRelease(ctx: Ctx, releaseId: string): SnapshotRow | undefined {
  return ctx.db.prepare('SELECT * FROM release_snapshots WHERE release_id = ? AND removed_at IS NULL').get(releaseId) as SnapshotRow | undefined;
}

/** The idempotency record of a key, if it is still retained. */
export function findIdempotencyKey(ctx: Ctx, projectId: string, key: string): { digest: string; release_id: string } | undefined {
  return ctx.db
    .prepare('SELECT digest, release_id FROM release_idempotency_keys WHERE project_id = ? AND key = ? AND created_at > ?')
    .get(projectId, key, ctx.clock.now() - IDEMPOTENCY_RETENTION_MS) as { digest: string; release_id: string } | undefined;
}

export interface NewCandidate {
  projectId: string;
  digest: string;
  gzipBytes: number;
  bundleBytes: number;
  fileCount: number;
  config: DeployConfig;
  idempotencyKey: string;
  createdBy: { type: string; id: string; name: string | null };
}

/** Insert a candidate and its idempotency key (expired keys of the project are pruned). Call inside a transaction. */
export function insertCandidate(ctx: Ctx, input: NewCandidate): ReleaseRow {
  const now = ctx.clock.now();
  ctx.db.prepare('DELETE FROM release_idempotency_keys WHERE project_id = ? AND created_at <= ?').run(input.projectId, now - IDEMPOTENCY_RETENTION_MS);
  const { seq } = ctx.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM releases WHERE project_id = ?').get(input.projectId) as { seq: number };
  const id = ctx.ids('rel');
  ctx.db
    .prepare(
      `INSERT INTO releases (id, project_id, seq, status, step, digest, gzip_bytes, bundle_bytes, file_count, config,
         created_by_type, created_by_id, created_by_name, created_at)
       VALUES (?, ?, ?, 'candidate', 'extract', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      input.projectId,
      seq,
      input.digest,
      input.gzipBytes,
      input.bundleBytes,
      input.fileCount,
      JSON.stringify(input.config),
      input.createdBy.type,
      input.createdBy.id,
      input.createdBy.name,
      now,
    );
  ctx.db
    .prepare('INSERT INTO release_idempotency_keys (project_id, key, digest, release_id, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(input.projectId, input.idempotencyKey, input.digest, id, now);
  return findRelease(ctx, input.projectId, id)!;
}

/** Record the step a candidate reached (durable: recovery after a crash reads it). */
export function setStep(ctx: Ctx, releaseId: string, step: ReleaseStep): void {
  ctx.db.prepare("UPDATE releases SET step = ? WHERE id = ? AND status = 'candidate'").run(step, releaseId);
}

/** Record (or clear) the app record of a release's started process. */
export function setRunRecord(ctx: Ctx, releaseId: string, record: RunningAppRecord | null): void {
  ctx.db.prepare('UPDATE releases SET run_record = ? WHERE id = ?').run(record ? JSON.stringify(record) : null, releaseId);
}

/** Record the pre-deploy snapshot of a candidate with its exact size. */
export function insertSnapshot(ctx: Ctx, input: { projectId: string; releaseId: string; path: string; sizeBytes: number; hadDatabase: boolean }): SnapshotRow {
  const id = ctx.ids('snap');
  ctx.db
    .prepare('INSERT INTO release_snapshots (id, project_id, release_id, path, size_bytes, had_database, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(id, input.projectId, input.releaseId, input.path, input.sizeBytes, input.hadDatabase ? 1 : 0, ctx.clock.now());
  return findSnapshot(ctx, id)!;
}

/** Mark a snapshot removed (its file is deleted by the caller) and drop every reference to it. */
export function markSnapshotRemoved(ctx: Ctx, snapshotId: string): void {
  ctx.db.prepare('UPDATE release_snapshots SET removed_at = ? WHERE id = ?').run(ctx.clock.now(), snapshotId);
  ctx.db.prepare('UPDATE releases SET restore_snapshot_id = NULL WHERE restore_snapshot_id = ?').run(snapshotId);
}

/** Mark a release's files removed (failed candidates, release cleanup). */
export function markArtifactRemoved(ctx: Ctx, releaseId: string): void {
  ctx.db.prepare('UPDATE releases SET artifact_retained = 0 WHERE id = ?').run(releaseId);
}

/** The state-machine view of a project's releases. */
export function loadReleaseSet(ctx: Ctx, projectId: string, projectSlug: string): ReleaseSetState {
  const releases: ReleaseRecord[] = listReleases(ctx, projectId)
    .reverse()
    .map((row) => {
      const snap = findSnapshot(ctx, row.restore_snapshot_id);
      const restoreSnapshot: SnapshotRef | null = snap && snap.removed_at === null ? { path: snap.path, sizeBytes: snap.size_bytes } : null;
      return { id: row.id, status: row.status, artifact: row.artifact_retained ? 'retained' : 'removed', predecessorId: row.predecessor_id, restoreSnapshot };
    });
  return { projectSlug, releases };
}

export interface PersistOptions {
  /** Release that just became active (sets activated_at/finished_at, clears step). */
  activated?: string;
  /** Candidate that failed, with its reason. */
  failed?: { releaseId: string; failure: ReleaseFailure };
  /** Snapshot rows by path, to translate the state machine's SnapshotRef back to ids. */
  snapshotIds?: ReadonlyMap<string, string>;
}

/**
 * Write the statuses, predecessors and restore snapshots of a state-machine result back to the rows
 * (call inside the transaction that also appends the audit event and updates the project).
 */
export function persistReleaseSet(ctx: Ctx, projectId: string, state: ReleaseSetState, options: PersistOptions = {}): void {
  const now = ctx.clock.now();
  const byPath = new Map(listKeptSnapshots(ctx, projectId).map((s) => [s.path, s.id]));
  for (const [path, id] of options.snapshotIds ?? []) byPath.set(path, id);
  // Only rows the transition changed are written; demotions first, so the one-active unique index
  // never sees two active rows.
  const stored = new Map(
    (
      ctx.db
        .prepare('SELECT id, status, predecessor_id, restore_snapshot_id, artifact_retained FROM releases WHERE project_id = ?')
        .all(projectId) as StoredSetRow[]
    ).map((row) => [row.id, row]),
  );
  const ordered = [...state.releases].sort((a, b) => Number(a.status === 'active') - Number(b.status === 'active'));
  const update = ctx.db.prepare(
    'UPDATE releases SET status = ?, predecessor_id = ?, restore_snapshot_id = ?, artifact_retained = ? WHERE id = ? AND project_id = ?',
  );
  for (const r of ordered) {
    const next: StoredSetRow = {
      id: r.id,
      status: r.status,
      predecessor_id: r.predecessorId,
      restore_snapshot_id: r.restoreSnapshot ? (byPath.get(r.restoreSnapshot.path) ?? null) : null,
      artifact_retained: r.artifact === 'retained' ? 1 : 0,
    };
    if (sameSetRow(stored.get(r.id), next)) continue;
    update.run(next.status, next.predecessor_id, next.restore_snapshot_id, next.artifact_retained, r.id, projectId);
  }
  if (options.activated) {
    ctx.db
      .prepare('UPDATE releases SET step = NULL, activated_at = ?, finished_at = COALESCE(finished_at, ?), failure_step = NULL WHERE id = ?')
      .run(now, now, options.activated);
  }
  if (options.failed) {
    const { releaseId, failure } = options.failed;
    ctx.db
      .prepare(
        'UPDATE releases SET step = NULL, finished_at = ?, failure_step = ?, failure_code = ?, failure_message = ?, failure_output = ?, run_record = NULL WHERE id = ?',
      )
      .run(now, failure.step, failure.code, failure.message.slice(0, 2000), failure.outputTail?.length ? JSON.stringify(failure.outputTail) : null, releaseId);
  }
}

interface StoredSetRow {
  id: string;
  status: string;
  predecessor_id: string | null;
  restore_snapshot_id: string | null;
  artifact_retained: number;
}

function sameSetRow(a: StoredSetRow | undefined, b: StoredSetRow): boolean {
  return (
    a !== undefined &&
    a.status === b.status &&
    a.predecessor_id === b.predecessor_id &&
    a.restore_snapshot_id === b.restore_snapshot_id &&
    a.artifact_retained === b.artifact_retained
  );
}

/** The stored reason of a failed release with its code's hint from the registry (the console does not bundle the registry). */
function failureOfRow(row: ReleaseRow): ReleaseFailure | null {
  if (!row.failure_code) return null;
  const failure: ReleaseFailure = { step: row.failure_step ?? 'recovery', code: row.failure_code, message: row.failure_message ?? '' };
  const hint = hintFor(row.failure_code);
  if (hint) failure.hint = hint;
  if (row.failure_output) failure.outputTail = JSON.parse(row.failure_output) as string[];
  return failure;
}

function hintFor(code: string): string | undefined {
  return Object.hasOwn(errorCodes, code) ? errorCodes[code]?.hint : undefined;
}

/** Wire shape of a release. */
export function toRelease(ctx: Ctx, row: ReleaseRow): Release {
  const config = JSON.parse(row.config) as DeployConfig;
  const snapshot = snapshotOfRelease(ctx, row.id) ?? findSnapshot(ctx, row.restore_snapshot_id);
  return {
    id: row.id,
    projectId: row.project_id,
    status: row.status,
    step: row.status === 'candidate' ? row.step : null,
    digest: row.digest,
    createdAt: isoTime(row.created_at),
    activatedAt: row.activated_at === null ? null : isoTime(row.activated_at),
    finishedAt: row.finished_at === null ? null : isoTime(row.finished_at),
    failure: failureOfRow(row),
    predecessorId: row.predecessor_id,
    artifactRetained: row.artifact_retained === 1,
    storage: {
      artifactBytes: row.gzip_bytes,
      bundleBytes: row.bundle_bytes,
      fileCount: row.file_count,
      snapshotBytes: snapshot && snapshot.removed_at === null ? snapshot.size_bytes : null,
    },
    config: { entry: config.entry, healthPath: config.health.path, healthTimeoutMs: config.health.timeoutMs, databasePath: config.database.path },
    createdBy: { type: row.created_by_type, id: row.created_by_id, name: row.created_by_name },
  };
}
