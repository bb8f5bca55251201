// The releases feature as the composition root sees it: builds its release driver (where apps run)
// from the factory it is given, runs boot recovery, exposes the routes, and stops (or leaves) apps on close.
import { join } from 'node:path';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { ProjectLocks, type StaleLockInfo } from '../core/project-lock.js';
import { appendAudit } from '../audit/append-audit.js';
import type { ArtifactLimits } from '../artifacts/index.js';
import { findProject } from '../projects/index.js';
import type { LogStore, ReleaseDriver, ReleaseDriverHooks, RunningApp, SupervisorEvent } from '../../runner/release-driver.js';
import { describeIsolation } from './describe-isolation.js';
import { failpointFromEnv, type Failpoint } from './failpoint.js';
import type { Isolation } from './isolation-contract.js';
import { isolationRoute } from './isolation-route.js';
import { logRoutes } from './log-routes.js';
import { releaseEventRoutes } from './release-event-routes.js';
import { ReleaseEventHub } from './release-events.js';
import { projectAppControl, type ProjectAppControl } from './project-app-control.js';
import { note, resolveSpec, routeWhenHealthy, type ReleaseDeps, type ReleaseRecoveryHooks } from './release-deps.js';
import type { ReleaseCanaryHooks } from './canary-hooks.js';
import type { ReleasePlacementHooks } from './placement-hooks.js';
import { readReleaseSettings, type ReleaseSettings } from './release-limits.js';
import { releaseRoutes, type PreviewUploads, type UploadPrincipalResolver } from './release-routes.js';
import { noRouting, type ReleaseRouting, type ReleaseUpstream } from './release-routing.js';
import { recoverReleases } from './recover-releases.js';
import { UploadTracker } from './upload-release.js';
import { combineObservers, type ReleaseObserver } from './release-observer.js';
import { rollbackRelease, type RollbackInput, type RollbackResult } from './rollback.js';
import { onNodeSettled, routeNodeRelease } from './node-release-driver.js';
import { NodeSettles } from './node-settles.js';

export interface ReleasesOptions {
  /** Shared project locks (deploy, rollback, cleanup, backups, deletion); default: `<data>/locks`. */
  locks?: ProjectLocks;
  /** The ingress seam; default: no routing. */
  routing?: ReleaseRouting<unknown>;
  /** Decrypted secrets of a project (default: none). */
  loadSecrets?: (projectId: string) => Promise<Record<string, string>>;
  /**
   * Where apps run: builds the release driver given the feature's hooks (start specs with current
   * secrets, supervisor events). The composition root passes runner/local-release-driver.ts.
   */
  driver: (hooks: ReleaseDriverHooks) => ReleaseDriver;
  settings?: Partial<ReleaseSettings>;
  artifactLimits?: Partial<ArtifactLimits>;
  failpoint?: Failpoint;
  /** Observer of release phases and rollbacks (GitHub check runs and deployments). */
  observer?: ReleaseObserver;
  /** Epoch env, rotation and drill of point-in-time recovery. */
  recovery?: ReleaseRecoveryHooks;
  /** Extra platform `SVC_*` variables for every app start (managed-bucket volume, key and limits). */
  appEnv?: ReleaseDeps['appEnv'];
  /** Resolves GitHub Actions OIDC bearers on the upload route. */
  uploadPrincipal?: UploadPrincipalResolver;
  /** Pull request previews: where a preview upload goes (the previews feature, built later, answers). */
  previewUploads?: PreviewUploads;
  /** Canary rollouts of code-only deploys with a running baseline. */
  canary?: ReleaseCanaryHooks;
  /** Projects placed on runner nodes deploy through generations. */
  placement?: ReleasePlacementHooks;
}

export interface ReleasesFeature {
  routes: (app: HttpApp) => Promise<void>;
  locks: ProjectLocks;
  /** The release driver: what runs per project, supervision status, shutdown. */
  driver: ReleaseDriver;
  logs: LogStore;
  /** Boot: finish interrupted transactions, re-adopt or restart every active release. */
  start(): Promise<void>;
  /** The running app of a project's active release (host/port for the ingress and tests). */
  current(projectId: string): RunningApp | null;
  /** Wait for running transactions, then stop (or detach) apps. */
  close(): Promise<void>;
  /** Roll back as `svc rollback` does (PR comment commands, check re-runs). */
  rollback(input: RollbackInput): Promise<RollbackResult>;
  /**
   * A running generation's operation settled on the node side (call after its SQLite
   * transaction ended): the pipeline commits the outcome in its own transaction. Never rejects.
   */
  nodeSettled(input: { projectId: string; generation: number }): Promise<void>;
  /**
   * Route a placed project to where its node says the release listens (null: unroute), or
   * with `hold` (upstream null) hold its new requests for the node's stop-first cutover until the next route.
   */
  nodeRoute(input: { projectId: string; releaseId: string | null; upstream: ReleaseUpstream | null; hold?: boolean }): Promise<void>;
  /** How this feature's runner isolates apps, and whether it can start them at all. */
  isolation(): Isolation;
  /** Stop and restart a project's app around work on its data (restore, recovery, project deletion); keeps the ingress route in step. */
  apps: ProjectAppControl;
}

/** Project locks whose stale-lock recoveries are audited as `lock.recovered`. */
function createProjectLocks(ctx: FeatureContext): ProjectLocks {
  return new ProjectLocks({
    dir: join(ctx.config.dataDir, 'locks'),
    clock: ctx.clock,
    onStaleLockRecovered: (info: StaleLockInfo) => {
      ctx.logger.warn({ ...info }, 'recovered a stale project lock');
      const project = findProject(ctx, info.projectId);
      if (!project) return;
      appendAudit(ctx, {
        kind: 'lock.recovered',
        organizationId: project.organization_id,
        projectId: project.id,
        actor: { type: 'system', id: 'svc-platform', name: info.recoveredBy },
        metadata: {
          reason: info.reason,
          operation: info.holder?.operation ?? null,
          pid: info.holder?.pid ?? null,
          acquiredAt: info.holder?.acquiredAt ?? null,
          recoveredBy: info.recoveredBy,
        },
      });
    },
  });
}

/** Build the releases feature (nothing runs until start()). */
export function createReleases(ctx: FeatureContext, options: ReleasesOptions): ReleasesFeature {
  const settings = { ...readReleaseSettings(ctx.config.env), ...options.settings };
  const driver = options.driver({
    resolveSpec: (projectId, releaseId) => resolveSpec(deps, projectId, releaseId),
    onEvent: (event) => onSupervisorEvent(deps, event),
  });
  // The steps of running releases, for followers of their event stream.
  const events = new ReleaseEventHub();
  const deps: ReleaseDeps = {
    ctx,
    locks: options.locks ?? createProjectLocks(ctx),
    driver,
    routing: options.routing ?? noRouting,
    loadSecrets: options.loadSecrets ?? (async () => ({})),
    settings,
    failpoint: options.failpoint ?? failpointFromEnv(ctx.config.env),
    ...(options.artifactLimits ? { artifactLimits: options.artifactLimits } : {}),
    observer: combineObservers([options.observer, events.observer()]),
    ...(options.recovery ? { recovery: options.recovery } : {}),
    ...(options.appEnv ? { appEnv: options.appEnv } : {}),
    ...(options.canary ? { canary: options.canary } : {}),
    ...(options.placement ? { placement: options.placement } : {}),
    nodeSettles: new NodeSettles(),
  };
  const isolation = (): Isolation => describeIsolation(ctx.config.env, driver.sandboxStatus());
  const tracker = new UploadTracker();
  const followers = new Set<AbortController>();
  let closed = false;

  return {
    locks: deps.locks,
    driver,
    logs: driver.logs,
    routes: async (app) => {
      await releaseRoutes(deps, tracker, options.uploadPrincipal, options.previewUploads)(app);
      await logRoutes(ctx, driver.logs, followers)(app);
      await releaseEventRoutes(ctx, events, followers)(app);
      await isolationRoute(ctx, isolation)(app);
      // Open log streams would keep the server from closing.
      app.addHook('preClose', async () => {
        for (const follower of followers) follower.abort();
        tracker.releaseNodeWaiters(); // uploads waiting for a runner node answer now
      });
    },
    start: () => recoverReleases(deps),
    current: (projectId) => driver.current(projectId),
    rollback: (input) => rollbackRelease(deps, input),
    isolation,
    apps: projectAppControl(deps),
    nodeSettled: (input) => onNodeSettled(deps, input),
    nodeRoute: (input) =>
      routeNodeRelease(deps, { projectId: input.projectId, releaseId: input.releaseId, upstream: input.upstream, ...(input.hold ? { hold: true } : {}) }),
    async close() {
      if (closed) return;
      closed = true;
      for (const follower of followers) follower.abort();
      await Promise.allSettled(tracker.all());
      if (settings.stopAppsOnClose) await driver.stopAll();
      else await driver.detachAll();
    },
  };
}

function onSupervisorEvent(deps: ReleaseDeps, event: SupervisorEvent): void {
  deps.ctx.logger.info({ ...event }, `supervisor: ${event.type}`);
  if (event.type === 'crashed')
    note(deps, event.projectId, event.releaseId, `exited (${event.exit.signal ?? `status ${event.exit.code}`}); restart in ${event.restartInMs} ms`);
  if (event.type === 'restart-failed') note(deps, event.projectId, event.releaseId, `restart failed: ${event.error}`);
  if (event.type === 'adopted' || event.type === 'started') {
    // Supervisor restarts and re-adoptions move traffic once the app answers its health route.
    const app = deps.driver.current(event.projectId);
    if (app)
      void routeWhenHealthy(deps, app).catch((error: unknown) => deps.ctx.logger.warn({ err: error, projectId: event.projectId }, 'restarted app not routed'));
  }
}
