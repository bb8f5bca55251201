// The one interface the release pipeline (src/releases) drives apps through: where a release's files
// go, the one-off jobs next to the project's data, starting and health-checking a candidate, making it
// the project's supervised app, stopping it, and what runs now. Traffic is not here: the pipeline
// switches the ingress itself. runner/local-release-driver.ts implements it over any AppRunner.
import type { AppStartSpec, RunningApp, RunningAppRecord } from './app-runner.js';
import type { HealthResult } from './health-check.js';
import type { LogStore } from './log-store.js';
import type { SandboxStatus } from './sandbox-status.js';
import type { SupervisedStatus, SupervisorEvent } from './supervisor.js';

export type { AppStartSpec, HealthResult, LogStore, RunningApp, RunningAppRecord, SandboxStatus, SupervisedStatus, SupervisorEvent };
export type { LogEntry, LogFilter } from './log-store.js';

/** Where a driver that keeps artifacts stores a release's original svc-deploy/1 bytes: beside its directory. */
export function keptArtifactPath(releaseDir: string): string {
  return `${releaseDir}.svc-deploy`;
}

/** The original, verified upload of a release (what drivers that keep artifacts store at stage). */
export interface ReleaseArtifact {
  /** SHA-256 (lowercase hex) of `bytes`. */
  sha256: string;
  bytes: Buffer;
}

/** Where a release's migrations and the project database are, and how unsafe SQL is treated. */
export interface MigrationJobTarget {
  databasePath: string;
  migrationsDir: string;
  allowUnsafeMigrations: boolean;
  operatorAllowsUnsafe: boolean;
}

/** One-off work beside the project's data, as data (the driver decides where and how it runs). */
export type ReleaseJob =
  /** Check history and safety read-only; answers the number of pending migrations. */
  | { type: 'precheck'; target: MigrationJobTarget }
  /** Apply every pending migration in one transaction (history rows stamped `now`); answers their names. */
  | { type: 'migrate'; target: MigrationJobTarget; now: number }
  /** Consistent copy of the database into `snapshotPath` (empty file: no database yet). */
  | { type: 'snapshot'; databasePath: string; snapshotPath: string }
  /** Put a snapshot back as the database (its app must be stopped). */
  | { type: 'restore-snapshot'; snapshotPath: string; databasePath: string }
  /** How many of a release's migrations the database does not hold as they are (read-only). */
  | { type: 'unapplied-migrations'; migrationsDir: string; databasePath: string }
  /** Bytes the database occupies with its -wal/-shm files. */
  | { type: 'database-footprint'; databasePath: string };

/** A snapshot a job wrote, with its exact size. */
export interface SnapshotFile {
  path: string;
  sizeBytes: number;
  /** False when there was no database yet (the snapshot file is empty). */
  hadDatabase: boolean;
}

/** What each job answers. */
export interface ReleaseJobResults {
  precheck: number;
  migrate: string[];
  snapshot: SnapshotFile;
  'restore-snapshot': undefined;
  'unapplied-migrations': number;
  'database-footprint': number;
}

/** What the driver asks of the pipeline (given when the driver is built, never set later). */
export interface ReleaseDriverHooks {
  /** A fresh start spec (current secrets) for every start and supervised restart. */
  resolveSpec(projectId: string, releaseId: string): Promise<AppStartSpec>;
  /** Supervisor events (crash, restart, adoption): the pipeline logs them and re-routes restarted apps. */
  onEvent(event: SupervisorEvent): void;
}

/** Where apps run, as the release pipeline drives it. */
export interface ReleaseDriver {
  readonly kind: 'process' | 'container' | 'sandbox' | 'swarm';
  /** Output of the apps and the platform's lines about them. */
  readonly logs: LogStore;
  /** The driver runs releases from their original bytes: the pipeline hands them to `stage` (`artifact`). */
  readonly keepsArtifacts?: boolean;
  /**
   * Place a release's verified files (`place` moves them into `releaseDir`), then make them read-only
   * and ready to start. `artifact` (the original upload) is given when the driver keeps artifacts; it
   * stays at keptArtifactPath(releaseDir) until unstage, so rollbacks to older releases still work.
   */
  stage(input: { releaseDir: string; place: (dir: string) => Promise<void>; artifact?: ReleaseArtifact }): Promise<void>;
  /** Remove a staged release's files, and its kept artifact (failed candidate, release cleanup, project deletion). */
  unstage(releaseDir: string): Promise<void>;
  /** Run one job next to the project's data. */
  runJob<J extends ReleaseJob>(job: J): Promise<ReleaseJobResults[J['type']]>;
  /**
   * Start a release beside whatever serves (not supervised, not routed). `canary`: the candidate runs
   * for a while beside the serving app (a canary rollout) before `serve` promotes it or `stop` ends it.
   */
  startCandidate(projectId: string, releaseId: string, options?: { canary?: boolean }): Promise<RunningApp>;
  /** Poll the app's health route until a 2xx, its exit, the timeout, or `signal` aborts. */
  checkHealth(app: RunningApp, health: { path: string; timeoutMs: number; signal?: AbortSignal }): Promise<HealthResult>;
  /** Make a started, healthy app the project's supervised app (the one it replaces is stopped). */
  serve(app: RunningApp): Promise<void>;
  /** Start a release as the project's supervised app (restarts outside a deploy). */
  startServing(projectId: string, releaseId: string): Promise<RunningApp>;
  /** Stop the project's app and stop supervising it (the caller drained the ingress first). */
  stop(projectId: string): Promise<void>;
  /** The project's running supervised app, if any. */
  current(projectId: string): RunningApp | null;
  /** Supervision state of a project (restarting apps included), or null. */
  status(projectId: string): SupervisedStatus | null;
  /** Re-attach to a recorded app if it still runs (boot recovery). */
  adopt(record: RunningAppRecord): Promise<RunningApp | null>;
  /** Boot: re-adopt or restart every app the driver supervised before. */
  recover(): Promise<void>;
  /** Shutdown: stop every app, or leave them running for re-adoption. */
  stopAll(): Promise<void>;
  detachAll(): Promise<void>;
  /** The sandbox's own status when apps run in sandboxes (undefined otherwise). */
  sandboxStatus(): SandboxStatus | undefined;
  /**
   * Project deletion, after `stop`: remove what the driver keeps for a project outside the control
   * plane's data directory (a swarm's services, secrets, network and volume). Absent: nothing to remove.
   */
  removeProject?(projectId: string): Promise<void>;
}
