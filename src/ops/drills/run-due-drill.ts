// One monitor pass's restore drill (one due drill per pass): pick it with the pure
// nextDueDrill, run it on a private copy of the newest retained backup, persist the receipt.
import type { ControlDb } from '../../core/control-db.js';
import type { IdGenerator } from '../../core/ids.js';
import { insertDrillReceipt, latestDrillReceipts, type StoredDrillReceipt } from './drill-store.js';
import { nextDueDrill, type DrillCandidate } from './next-due-drill.js';
import { runRestoreDrill, type RestoreDrillOptions } from './run-restore-drill.js';

/** One loopback HTTP check of a drill: GET `path` must answer `status`. */
export interface DrillCheck {
  name: string;
  path: string;
  status: number;
}

/** Retained backups as drills see them (declared where consumed; the backups feature provides it). */
export interface DrillBackups {
  /** The newest retained backup of a project, or null when none is retained. */
  newest(projectId: string): { id: string; file: string; createdAt: number } | null;
  /** Decrypt and authenticate one backup into `destPath` (a private temp path); never touches production. */
  decrypt(projectId: string, backupId: string, destPath: string, signal: AbortSignal): Promise<void>;
}

/** The `restoreDrills` options of the operations monitor. */
export interface RestoreDrillsOptions {
  intervalMs: number;
  timeoutMs: number;
  boot: RestoreDrillOptions['boot'];
  /** Fixed checks, or per project (the packaged default: the release's health path expecting 200). */
  checks: readonly DrillCheck[] | ((projectId: string) => readonly DrillCheck[]);
  backups: DrillBackups;
  /** Only these projects are drilled (the packaged default: projects with an active release). */
  eligible?: (projectId: string) => boolean;
  /** The release whose code `boot` starts, recorded in the receipt. */
  releaseOf?: (projectId: string) => string | null;
  /** Called after the receipt is stored (e.g. the svc/restore-drill check run); errors are logged, not thrown. */
  onReceipt?: (receipt: StoredDrillReceipt) => void;
}

/** Drill candidates among `projectIds`: eligible projects with a retained backup. */
export function drillCandidates(
  options: Pick<RestoreDrillsOptions, 'backups' | 'eligible'>,
  projectIds: readonly string[],
): (DrillCandidate & { backup: { id: string; file: string } })[] {
  const out: (DrillCandidate & { backup: { id: string; file: string } })[] = [];
  for (const projectId of projectIds) {
    if (options.eligible && !options.eligible(projectId)) continue;
    const backup = options.backups.newest(projectId);
    if (backup) out.push({ projectId, newestBackupAt: backup.createdAt, backup });
  }
  return out;
}

/** Run the one due drill among `projectIds`, if any, and persist its receipt. */
export async function runDueDrill(
  options: RestoreDrillsOptions,
  deps: { db: ControlDb; ids: IdGenerator; now: () => number; onError?: (error: unknown) => void; signal?: AbortSignal },
  projectIds: readonly string[],
): Promise<StoredDrillReceipt | null> {
  const candidates = drillCandidates(options, projectIds);
  const due = nextDueDrill(
    candidates,
    latestDrillReceipts(
      deps.db,
      candidates.map((c) => c.projectId),
    ),
    deps.now(),
    { intervalMs: options.intervalMs },
  );
  if (!due) return null;
  const { backup } = candidates.find((c) => c.projectId === due.projectId)!;
  const releaseId = options.releaseOf?.(due.projectId) ?? null;
  let checks: readonly DrillCheck[] = [];
  let checksError: string | null = null;
  try {
    checks = typeof options.checks === 'function' ? options.checks(due.projectId) : options.checks;
  } catch (error) {
    checksError = error instanceof Error ? error.message : String(error);
  }
  const result = checksError
    ? {
        startedAt: deps.now(),
        finishedAt: deps.now(),
        outcome: 'failed' as const,
        checks: [],
        code: 'SVC_OPS_DRILL_FAILED',
        error: `no checks: ${checksError}`,
      }
    : await runRestoreDrill({
        projectId: due.projectId,
        backupFile: backup.file,
        decrypt: (_file, dest, signal) => options.backups.decrypt(due.projectId, backup.id, dest, signal),
        boot: options.boot,
        checks,
        timeoutMs: options.timeoutMs,
        now: deps.now,
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
  const receipt: StoredDrillReceipt = {
    id: deps.ids('drl'),
    projectId: due.projectId,
    releaseId,
    backupId: backup.id,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    outcome: result.outcome,
    code: result.code,
    error: result.error,
    checks: result.checks,
  };
  insertDrillReceipt(deps.db, receipt);
  try {
    options.onReceipt?.(receipt);
  } catch (error) {
    deps.onError?.(error);
  }
  return receipt;
}

/**
 * When a project's drill job is due (job inspection): one interval after its last drill started
 * (five minutes after a failed setup), or — never drilled — one interval after its newest backup,
 * so enabling drills on many projects is not at once "overdue". Null without a retained backup.
 */
export function drillDueAt(options: Pick<RestoreDrillsOptions, 'backups' | 'eligible' | 'intervalMs'>, db: ControlDb, projectId: string): number | null {
  const [candidate] = drillCandidates(options, [projectId]);
  if (!candidate) return null;
  const due = nextDueDrill([candidate], latestDrillReceipts(db, [projectId]), Number.POSITIVE_INFINITY, { intervalMs: options.intervalMs });
  if (!due) return null;
  return Number.isFinite(due.dueAt) ? due.dueAt : (candidate.newestBackupAt ?? 0) + options.intervalMs;
}
