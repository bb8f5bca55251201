// The effects the release pipeline (its executor, rollback, boot recovery) works with, in one bundle —
// apps only through the ReleaseDriver — plus the small app operations they share (health gate,
// quiesce, route, restart or route back to the prior release).
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { ProjectLocks } from '../core/project-lock.js';
import type { ArtifactLimits, DeployConfig } from '../artifacts/index.js';
import type { AppStartSpec, HealthResult, ReleaseDriver, RunningApp } from '../../runner/release-driver.js';
import type { Failpoint } from './failpoint.js';
import type { NodeSettles } from './node-release-driver.js';
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
  /** svc:github — observers of transactions and rollbacks (errors are caught; see release-observer.ts). */
  observer?: ReleaseObserver;
  /** svc:recovery — point-in-time recovery of the project database (src/recovery/platform). */
  recovery?: ReleaseRecoveryHooks;
  /** Extra platform-controlled `SVC_*` variables for an app start (e.g. its managed-bucket volume and key). */
  appEnv?: (projectId: string, layout: ProjectLayout) => Record<string, string>;
  /** svc:canary — canary rollouts of code-only deploys (src/canary); absent = direct activation. */
  canary?: ReleaseCanaryHooks;
  /** svc:nodes — projects placed on a runner node converge through generations (src/nodes); absent = all local. */
  placement?: ReleasePlacementHooks;
  /** svc:nodes — in-process: each node outcome is committed once (node-release-driver.ts). */
  nodeSettles: NodeSettles;
}

/** svc:nodes — what a rollback asks of a placed project's node (restore the snapshot it took, or code only). */
export interface NodeRollbackIntent {
  restoreData: boolean;
  /** The release active when the rollback was requested. */
  fromReleaseId: string | null;
}

/** svc:nodes — the node's outcome of a generation: observed, or its (or the control plane's) stable code. */
export type NodeOutcome = { ok: true } | { ok: false; code: string };

/** svc:nodes — a running generation as the pipeline settles it. */
export interface NodeGeneration {
  generation: number;
  releaseId: string;
  /** A rollback's intent; null for a deploy. */
  rollback: NodeRollbackIntent | null;
  /** svc:canary — a canary's generation (its candidate staged beside the baseline; never committed by itself). */
  canary: boolean;
  /** Null while the node works on it. */
  outcome: NodeOutcome | null;
}

/**
 * svc:nodes — the pipeline's node driver: what deploys, rollbacks and boot recovery of projects placed
 * on a runner node ask of it (declared where consumed; src/nodes implements it and src/platform.ts
 * wires it, so releases never imports nodes). A node converges a whole generation at once and reports
 * asynchronously, so its one operation is "converge to this release" and await the outcome.
 */
export interface ReleasePlacementHooks {
  /** Whether a runner node converges this project (its deploys and rollbacks run the node plans). */
  isPlaced(projectId: string): boolean;
  /** Durably keep the verified artifact bytes for the node, before any generation refers to them. */
  keepArtifact(projectId: string, digest: string, bytes: Buffer): Promise<void>;
  /** A new running generation of this release, in its own transaction (throws to refuse); returns its number. */
  deploy(subject: { project: { id: string; organizationId: string }; actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null } }, releaseId: string, rollback?: NodeRollbackIntent, canary?: true): number;
  /** svc:canary — where the candidate of a canary generation listens once its node shows it, its node's failure code, or null after `waitMs`. */
  awaitCanary(projectId: string, generation: number, waitMs: number): Promise<{ ok: true; upstream: { host: string; port: number } } | { ok: false; code: string } | null>;
  /** svc:canary — call `listener` once the node's reports stop showing the candidate of `generation`; returns the remover. */
  onCanaryGone(projectId: string, generation: number, listener: () => void): () => void;
  /** svc:canary — the release the node's reports route the project to now (the baseline of a canary), or null. */
  routedRelease(projectId: string): string | null;
  /** The node's outcome of a generation, or null when none came within `waitMs`. */
  awaitGeneration(projectId: string, generation: number, waitMs: number): Promise<NodeOutcome | null>;
  /** A running generation of the project, or null when it has none of that number. */
  generation(projectId: string, generation: number): NodeGeneration | null;
  /** The newest running generation of the project (of one release when given), or null. */
  newestGeneration(projectId: string, releaseId?: string): NodeGeneration | null;
  /** Whether a candidate release is waiting for its node (boot recovery must not fail it). */
  awaitingNode(releaseId: string): boolean;
  /** How long a deploy or rollback waits for the node's outcome before answering with the release as it stands. */
  waitMs: number;
}

/** svc:canary — one canary rollout as the release transaction drives it (src/canary implements it). */
export interface ReleaseCanaryRun {
  /** After the health gate: run every stage; resolves when the candidate may be promoted, throws an SvcError once it failed (candidate routing already removed). */
  run(candidate: CanaryCandidateApp, health: { path: string }): Promise<void>;
  /** The transaction ended: activated after promotion, or failed or rejected with this failure. Idempotent. */
  settle(result: { ok: true } | { ok: false; code: string; message: string }): void;
}

/** svc:canary — a canary's candidate: a started local app, or the one a runner node reports beside the baseline. */
export type CanaryCandidateApp = Pick<RunningApp, 'host' | 'port'> & { onExit(listener: () => void): () => void };

/** svc:canary — what the release transaction asks of canary rollouts (declared where consumed). */
export interface ReleaseCanaryHooks {
  /**
   * A deploy with a running baseline: its canary run when one was requested or configured, else null
   * (direct activation). Throws an SvcError to refuse the deploy (fails closed).
   */
  begin(input: { projectId: string; releaseId: string; baselineReleaseId: string; requested: boolean; config: DeployConfig; authority: () => Promise<boolean> }): ReleaseCanaryRun | null;
}

/** What the release transaction and app starts ask of point-in-time recovery (declared where consumed). */
export interface ReleaseRecoveryHooks {
  /** SVC_RECOVERY_DIR/KEY for an app start, or {} when the project has recovery off. */
  appEnv(projectId: string, databasePath: string, releaseId: string): Promise<Record<string, string>>;
  /** After the snapshot, before migrations: rotate the epoch of the stopped database (spec 002 rule 4). */
  beforeMigrate(subject: { project: { id: string; slug: string; organizationId: string }; actor: { type: 'user' | 'token' | 'github' | 'system'; id: string; name?: string | null } }, databasePath: string, releaseId: string): Promise<void>;
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
    return new SvcError('SVC_APP_START_FAILED', `The app exited during start-up (${exit?.signal ? `signal ${exit.signal}` : `status ${exit?.code ?? 'unknown'}`}); see svc logs.`, {
      details: { code: exit?.code ?? null, signal: exit?.signal ?? null },
    });
  }
  const last = result.lastStatus !== null ? `last answer ${result.lastStatus}` : `last error: ${result.lastError ?? 'none'}`;
  return new SvcError('SVC_HEALTH_CHECK_FAILED', `${config.health.path} did not answer 2xx within ${config.health.timeoutMs} ms (${result.attempts} attempts, ${last}).`, {
    details: { path: config.health.path, timeoutMs: config.health.timeoutMs, lastStatus: result.lastStatus },
  });
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
 * site deletion, a failed deploy or rollback, boot): start the release under supervision, wait for
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
  await routeWhenHealthy(deps, serving).catch((error: unknown) => deps.ctx.logger.error({ err: error, projectId }, 'could not route back to the prior release'));
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
