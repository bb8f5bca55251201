// Per-project recovery on the platform: enable (a new sealed key), status (epochs and sequences from the
// repositories and the database), restore to a sequence or time into a new stopped database file.
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../core/errors.js';
import type { FeatureContext } from '../../core/feature-context.js';
import { isoTime } from '../../core/feature-context.js';
import { appendAudit, type AuditInput } from '../../audit/append-audit.js';
import { projectRoot } from '../../projects/index.js';
import { getReleaseById } from '../../releases/index.js';
import type { Keyring } from '../../secrets/index.js';
import type { ReleaseDriver } from '../../../runner/release-driver.js';
import type { RecoveryStatusResponse, RestoreRecoveryBody } from '../contract.js';
import { restorePointInTimeOffThread } from '../recovery-off-thread.js';
import { readDatabaseEpoch, type DatabaseEpoch } from './database-epoch.js';
import { epochsRoot, readEpochs, type EpochInfo } from './epoch-directories.js';
import { loadRecoveryKey, newSealedRecoveryKey } from './recovery-key-store.js';
import {
  epochReleases,
  findProjectRecovery,
  insertProjectRecovery,
  insertRestore,
  listRestores,
  toRecoveryRestore,
  type RestoreRow,
} from './recovery-store.js';

/** The project and the actor of an operation. */
export interface RecoverySubject {
  project: { id: string; slug: string; organizationId: string };
  actor: AuditInput['actor'];
}

/**
 * The release driver's one-off jobs: recovery puts a database in place (and keeps an undo copy) only
 * through its `snapshot` and `restore-snapshot` jobs, never by touching the files itself.
 */
export type RecoveryJobs = Pick<ReleaseDriver, 'runJob'>;

/** What the recovery service needs. */
export interface ProjectRecoveryDeps {
  ctx: FeatureContext;
  keyring: Keyring;
  jobs: RecoveryJobs;
  /** The project database path, or null before the first release. */
  databasePath(projectId: string): string | null;
}

/** `<projectRoot>/recovery-restores`: restored databases and undo snapshots. */
export function restoresDir(dataDir: string, projectId: string): string {
  return join(projectRoot(dataDir, projectId), 'recovery-restores');
}

/** Enable recovery (idempotent; the key is generated once and never replaced); audited as recovery.enable. */
export function enableRecovery(deps: ProjectRecoveryDeps, subject: RecoverySubject): { created: boolean } {
  const { ctx } = deps;
  const box = newSealedRecoveryKey(deps.keyring, subject.project.id);
  const created = ctx.db
    .transaction(() => {
      const isNew = insertProjectRecovery(ctx, subject.project.id, box, ctx.clock.now());
      if (isNew)
        appendAudit(ctx, {
          kind: 'recovery.enable',
          organizationId: subject.project.organizationId,
          projectId: subject.project.id,
          actor: subject.actor,
          metadata: { effective: 'next-release-or-restart' },
        });
      return isNew;
    })
    .immediate();
  return { created };
}

/** Status: enabled, epochs (oldest first), sequences of the current epoch, restores. */
export async function recoveryStatus(deps: ProjectRecoveryDeps, projectId: string): Promise<RecoveryStatusResponse> {
  const { ctx } = deps;
  const row = findProjectRecovery(ctx, projectId);
  const restores = listRestores(ctx, projectId).map(toRecoveryRestore);
  const base = { effective: 'next-release-or-restart' as const, restores };
  if (!row)
    return {
      ...base,
      enabled: false,
      enabledAt: null,
      attached: false,
      currentEpoch: null,
      committedThrough: null,
      exportedThrough: null,
      newestCommitAt: null,
      epochs: [],
    };
  const key = loadRecoveryKey(ctx, deps.keyring, projectId);
  const epochs = await readEpochs(epochsRoot(ctx.config.dataDir, projectId), key);
  const path = deps.databasePath(projectId);
  const database = path === null ? null : readDatabaseEpoch(path);
  const current = currentEpochOf(epochs, database, row.current_epoch);
  const abandoned = abandonedEpochs(ctx, projectId);
  return {
    ...base,
    enabled: true,
    enabledAt: isoTime(row.enabled_at),
    attached: database !== null,
    currentEpoch: current?.id ?? null,
    committedThrough: database?.committedThrough ?? null,
    exportedThrough: current?.exportedThrough ?? null,
    newestCommitAt: database ? isoTime(database.newestCommitAt) : null,
    epochs: epochs.map((e) => ({
      id: e.id,
      epochId: e.epochId,
      createdAt: e.createdAt === null ? null : isoTime(e.createdAt),
      exportedThrough: e.exportedThrough,
      headUpdatedAt: e.headUpdatedAt === null ? null : isoTime(e.headUpdatedAt),
      current: e.id === current?.id,
      abandoned: abandoned.has(e.id),
    })),
  };
}

/** Parse `asOf` (ms or ISO text) into milliseconds. */
export function parseAsOf(value: number | string): number {
  const ms = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0) throw new SvcError('SVC_VALIDATION', `asOf must be milliseconds or an ISO 8601 time (got ${JSON.stringify(value)}).`);
  return ms;
}

/**
 * The epoch a restore reads. Pure. An explicit id matches the directory or recovery's epoch id; for
 * `asOf` the newest epoch (not abandoned) created at or before that time; otherwise the current epoch.
 */
export function pickRestoreEpoch(
  epochs: readonly EpochInfo[],
  body: { epochId?: string | undefined; asOf?: number | undefined },
  where: { current: string | null; abandoned: ReadonlySet<string> },
): EpochInfo {
  const begun = epochs.filter((e) => e.epochId !== null);
  const live = begun.filter((e) => !where.abandoned.has(e.id));
  let found: EpochInfo | undefined;
  if (body.epochId !== undefined) found = begun.find((e) => e.id === body.epochId || e.epochId === body.epochId);
  else if (body.asOf !== undefined) found = [...live].reverse().find((e) => e.createdAt !== null && e.createdAt <= body.asOf!) ?? live[0];
  else found = begun.find((e) => e.id === where.current) ?? live.at(-1);
  if (!found)
    throw new SvcError(
      'SVC_RECOVERY_EPOCH_NOT_FOUND',
      body.epochId !== undefined ? `No recovery epoch ${body.epochId}.` : 'The project has no begun recovery epoch yet.',
    );
  return found;
}

/** Epochs begun by a candidate whose release then failed: never live; kept, but skipped by default restores. */
function abandonedEpochs(ctx: FeatureContext, projectId: string): Set<string> {
  const out = new Set<string>();
  for (const [epoch, releaseId] of epochReleases(ctx, projectId)) if (getReleaseById(ctx, releaseId)?.status === 'failed') out.add(epoch);
  return out;
}

/** The epoch the project database belongs to (or, without a journal, the one the latest start was given). */
function currentEpochOf(epochs: readonly EpochInfo[], database: DatabaseEpoch | null, remembered: string | null): EpochInfo | null {
  return (database ? epochs.find((e) => e.epochId === database.epochId) : undefined) ?? epochs.find((e) => e.id === remembered) ?? null;
}

/** Restore to a sequence or time into `<projectRoot>/recovery-restores/<restoreId>.db` (a new, stopped database). */
export async function restoreIntoNewDatabase(deps: ProjectRecoveryDeps, subject: RecoverySubject, body: RestoreRecoveryBody): Promise<RestoreRow> {
  const { ctx } = deps;
  const projectId = subject.project.id;
  const key = loadRecoveryKey(ctx, deps.keyring, projectId);
  const asOf = body.asOf === undefined ? undefined : parseAsOf(body.asOf);
  const epochs = await readEpochs(epochsRoot(ctx.config.dataDir, projectId), key);
  const path = deps.databasePath(projectId);
  const current = currentEpochOf(epochs, path === null ? null : readDatabaseEpoch(path), findProjectRecovery(ctx, projectId)?.current_epoch ?? null);
  const epoch = pickRestoreEpoch(epochs, { epochId: body.epochId, asOf }, { current: current?.id ?? null, abandoned: abandonedEpochs(ctx, projectId) });
  const id = ctx.ids('rrs');
  const dir = restoresDir(ctx.config.dataDir, projectId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const targetPath = join(dir, `${id}.db`);
  const target = asOf !== undefined ? { asOf } : { throughSequence: body.throughSequence! };
  const result = await restorePointInTimeOffThread({
    directory: epoch.directory,
    encryptionKey: key,
    targetPath,
    ...target,
    confirmation: 'restore point in time',
  });
  const row: RestoreRow = {
    id,
    project_id: projectId,
    epoch_dir: epoch.id,
    epoch_id: result.epochId,
    sequence: result.sequence,
    commit_time: result.time,
    size_bytes: (await stat(targetPath)).size,
    created_at: ctx.clock.now(),
    activated_at: null,
  };
  ctx.db
    .transaction(() => {
      insertRestore(ctx, row);
      appendAudit(ctx, {
        kind: 'recovery.restore_create',
        organizationId: subject.project.organizationId,
        projectId,
        actor: subject.actor,
        metadata: { restoreId: id, epoch: epoch.id, sequence: result.sequence, sizeBytes: row.size_bytes },
      });
    })
    .immediate();
  return row;
}
