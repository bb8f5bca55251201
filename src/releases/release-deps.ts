// The effects the release pipeline (its executor, rollback, boot recovery) works with, in one bundle —
// apps only through the ReleaseDriver — plus the small app operations they share (health gate,
// quiesce, route, restart or route back to the prior release).
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { ProjectLocks } from '../core/project-lock.js';
import type { ArtifactLimits, DeployConfig } from '../artifacts/index.js';
import type { AppStartSpec, HealthResult, ReleaseDriver, RunningApp } from '../../runner/release-driver.js';
import type { Failpoint } from './failpoint.js';
import type { NodeSettles } from './node-settles.js';
import type { ReleasePlacementHooks } from './placement-hooks.js';
import type { ReleaseCanaryHooks } from './canary-hooks.js';
import { databasePathOf, projectLayout, releaseDirOf, type ProjectLayout } from './project-layout.js';
import type { ReleaseSettings } from './release-limits.js';
import type { ReleaseObserver } from './release-observer.js';
import type { ReleaseRouting } from './release-routing.js';
import { getReleaseById, releaseConfig, type ReleaseRow } from './release-store.js';

/** Everything the releases feature needs from the outside world. */
export interface ReleaseDeps {
  ctx: FeatureContext;
  locks: ProjectLocks;
  /** Where apps run: staging, jobs beside the data, starts, health, supervision (runner/release-driver.ts). */
  driver: ReleaseDriver;
  routing: ReleaseRouting<unknown>;
  /** Decrypted runtime secrets of a project (the secrets feature provides it; default none). */
  loadSecrets: (projectId: string) => Promise<Record<string, string>>;
  settings: ReleaseSettings;
  failpoint: Failpoint;
  /** Artifact limits of uploads (default: the shared defaults). */
  artifactLimits?: Partial<ArtifactLimits>;
  /** Observers of transactions and rollbacks (errors are caught; see release-observer.ts). */
  observer?: ReleaseObserver;
  /** Point-in-time recovery of the project database (src/recovery/platform). */
  recovery?: ReleaseRecoveryHooks;
  /** Extra platform-controlled `SVC_*` variables for an app start (e.g. its managed-bucket volume and key). */
  appEnv?: (projectId: string, layout: ProjectLayout) => Record<string, string>;
  /** Canary rollouts of code-only deploys (src/canary); absent = direct activation. */
  canary?: ReleaseCanaryHooks;
  /** Projects placed on a runner node converge through generations (src/nodes); absent = all local. */
  placement?: ReleasePlacementHooks;
  /** In-process: each node outcome is committed once (node-release-driver.ts). */
  nodeSettles: NodeSettles;
}

/** What the release transaction and app starts ask of point-in-time recovery (declared where consumed). */
export interface ReleaseRecoveryHooks {
  /** SVC_RECOVERY_DIR/KEY for an app start, or {} when the project has recovery off. */
  appEnv(projectId: string, databasePath: string, releaseId: string): Promise<Record<string, string>>;
  /** After the snapshot, before migrations: rotate the epoch of the stopped database (an epoch cannot journal a schema change). */
  beforeMigrate(
    subject: {
      project: { id: string; slug: string; organizationId: string };
      actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null };
    },
    databasePath: string,
    releaseId: string,
  ): Promise<void>;
  /** After the candidate's health check: verify a drill of the epoch it began. */
  afterHealthy(projectId: string, databasePath: string): Promise<void>;
  /** Whether the project journals its database (a journaled database never gets a second writer). */
  enabled(projectId: string): boolean;
}

/** A platform-written line in the project's log (never fails the caller). */
export function note(deps: ReleaseDeps, projectId: string, releaseId: string, line: string): void {
  try {
    deps.driver.logs.system(projectId, releaseId, line);
  } catch (error) {
    deps.ctx.logger.warn({ err: error, projectId }, 'could not write a release log line');
  }
}

/** The start spec of a release: its directory and entry, persistent data, public env and current secrets. */
export async function resolveSpec(deps: ReleaseDeps, projectId: string, releaseId: string): Promise<AppStartSpec> {
  const row = getReleaseById(deps.ctx, releaseId);
  if (!row || row.project_id !== projectId) throw new SvcError('SVC_RELEASE_NOT_FOUND', `Release ${releaseId} of ${projectId} does not exist.`);
  const config = releaseConfig(row);
  const layout = projectLayout(deps.ctx.config.dataDir, projectId);
  const databasePath = databasePathOf(layout, config.database.path);
  return {
    projectId,
    releaseId,
    releaseDir: releaseDirOf(layout, releaseId),
    entry: config.entry,
    dataDir: layout.dataDir,
    databasePath,
    env: config.env,
    secrets: await deps.loadSecrets(projectId),
    release: { digest: row.digest, health: { path: config.health.path, timeoutMs: config.health.timeoutMs } },
    ...(deps.recovery || deps.appEnv
      ? { platformEnv: { ...deps.appEnv?.(projectId, layout), ...(deps.recovery ? await deps.recovery.appEnv(projectId, databasePath, releaseId) : {}) } }
      : {}),
  };
}

/**
 * Poll a started app's health route within health.timeoutMs; throws SVC_APP_START_FAILED (it exited)
 * or SVC_HEALTH_CHECK_FAILED (no 2xx in time). The app is left running: the caller decides.
 */
export async function checkStartedHealth(deps: ReleaseDeps, row: ReleaseRow, app: RunningApp): Promise<void> {
  const config = releaseConfig(row);
  const result = await deps.driver.checkHealth(app, { path: config.health.path, timeoutMs: config.health.timeoutMs });
  if (!result.ok) throw healthFailure(config, result, app);
}

/** SVC_APP_START_FAILED (the app exited) or SVC_HEALTH_CHECK_FAILED (no 2xx in time) for a failed health gate. */
function healthFailure(config: DeployConfig, result: Exclude<HealthResult, { ok: true }>, app: RunningApp): SvcError {
  if (result.reason === 'exited') {
    const exit = app.exited;
    return new SvcError(
      'SVC_APP_START_FAILED',
      `The app exited during start-up (${exit?.signal ? `signal ${exit.signal}` : `status ${exit?.code ?? 'unknown'}`}); see svc logs.`,
      {
        details: { code: exit?.code ?? null, signal: exit?.signal ?? null },
      },
    );
  }
  const last = result.lastStatus !== null ? `last answer ${result.lastStatus}` : `last error: ${result.lastError ?? 'none'}`;
  return new SvcError(
    'SVC_HEALTH_CHECK_FAILED',
    `${config.health.path} did not answer 2xx within ${config.health.timeoutMs} ms (${result.attempts} attempts, ${last}).`,
    {
      details: { path: config.health.path, timeoutMs: config.health.timeoutMs, lastStatus: result.lastStatus },
    },
  );
}

/** Step 5: take the project out of the ingress, let in-flight requests finish, stop its supervised app. */
export async function quiesce(deps: ReleaseDeps, projectId: string): Promise<void> {
  // New requests wait (up to holdMs) for whatever is routed next instead of failing in the window.
  const previous = await deps.routing.hold(projectId, deps.settings.holdMs);
  await deps.routing.drain(previous, deps.settings.drainTimeoutMs);
  await deps.driver.stop(projectId);
}

/** Atomic cutover: route the project to a started, healthy app; the previous target drains. */
export async function routeTo(deps: ReleaseDeps, app: RunningApp): Promise<void> {
  const previous = await deps.routing.switchUpstream(app.projectId, { host: app.host, port: app.port }, app.releaseId);
  await deps.routing.drain(previous, deps.settings.drainTimeoutMs);
}

/**
 * The one way a project's app is restarted outside a deploy (restore, recovery activation, a failed
 * project deletion, a failed deploy or rollback, boot): start the release under supervision, wait for
 * its health route, and only then move the ingress to it. Throws SVC_APP_START_FAILED or
 * SVC_HEALTH_CHECK_FAILED when it does not get healthy; the route is then left as it was.
 */
export async function restartSupervised(deps: ReleaseDeps, projectId: string, releaseId: string): Promise<RunningApp> {
  const app = await deps.driver.startServing(projectId, releaseId);
  await routeWhenHealthy(deps, app);
  return app;
}

/** restartSupervised for paths that must go on when the restart fails (it is logged instead). Never throws. */
export async function restartRelease(deps: ReleaseDeps, projectId: string, releaseId: string): Promise<void> {
  try {
    await restartSupervised(deps, projectId, releaseId);
  } catch (error) {
    // The supervisor restarts an app that exits; the failure is visible in logs and the project status.
    deps.ctx.logger.error({ err: error, projectId, releaseId }, 'could not restart the release');
    note(deps, projectId, releaseId, `restart failed: ${(error as Error).message}`);
  }
}

/** What a cutover needs to know about the side that is serving now (see chooseCutover). */
export function servingFacts(deps: ReleaseDeps, projectId: string, priorReleaseId: string | undefined): { priorRunning: boolean; journaled: boolean } {
  return {
    priorRunning: priorReleaseId !== undefined && deps.driver.current(projectId)?.releaseId === priorReleaseId,
    journaled: deps.recovery?.enabled(projectId) ?? false,
  };
}

/** How far a failed deploy or rollback got with the release that was serving before it. */
export interface PriorState {
  releaseId: string | undefined;
  /** Stop-first: it was taken out of the ingress and stopped. */
  stopped: boolean;
  /** Traffic had already moved to the failed release. */
  routed: boolean;
}

/**
 * The undo of a failed cutover (deploy or rollback): a stopped prior release is restarted and routed
 * once healthy; one that kept serving (blue-green) gets the route back if traffic had moved. Never throws.
 */
export async function givePriorBack(deps: ReleaseDeps, projectId: string, prior: PriorState): Promise<void> {
  if (prior.releaseId !== undefined && prior.stopped) return restartRelease(deps, projectId, prior.releaseId);
  if (!prior.routed) return;
  const serving = deps.driver.current(projectId);
  if (!serving) return;
  await routeWhenHealthy(deps, serving).catch((error: unknown) =>
    deps.ctx.logger.error({ err: error, projectId }, 'could not route back to the prior release'),
  );
}

/**
 * Route to a supervised app once its health route answers (restarts, supervisor crash restarts,
 * re-adoption at boot). An app that does not answer in time is not routed and the failure is
 * thrown; the route keeps its current target.
 */
export async function routeWhenHealthy(deps: ReleaseDeps, app: RunningApp): Promise<void> {
  const row = getReleaseById(deps.ctx, app.releaseId);
  if (!row) return;
  await checkStartedHealth(deps, row, app);
  // Route only if this app is still the supervised one (a deploy may have started meanwhile).
  if (deps.driver.current(app.projectId) === app) await routeTo(deps, app);
}
