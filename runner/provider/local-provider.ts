// A provider that converges projects on this host through an AppRunner (normally the SupervisedRunner
// of ../supervision: every app beneath its own supervisor). It cuts over as the control plane's release
// pipeline does (chooseCutover, via node-cutover.ts): code-only changes are blue-green (the candidate
// starts beside the active app; a failed one never touches it); schema changes and data restores are
// stop-first and as database-safe as the release transaction: hold the project's requests, stop the
// writer, snapshot (or restore, keeping a safety copy), migrate, start and health-check the candidate,
// switch the durable "active" pointer atomically; on any failure before the switch stop the candidate,
// put the data back and restart the previous release. A canary request starts a code-only candidate
// beside the baseline without switching (canary-candidates.ts, decisions in node-canary.ts); a later
// request for its release promotes it without a restart, any other request aborts it first.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeployConfig } from '../../src/artifacts/index.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { SvcError, isSvcError } from '../../src/core/errors.js';
import type { AppRunner, RunningApp } from '../app-runner.js';
import { migrateDatabase } from '../jobs/apply-migrations.js';
import { createSnapshot } from '../jobs/snapshot.js';
import {
  clearPendingDeploy,
  commitPendingDeploy,
  decidePendingDeploy,
  hasSnapshotOf,
  precheckMigrations,
  readPendingDeploy,
  restoreForRollback,
  settlePendingDeploy,
  snapshotAndMigrate,
  snapshotPathOf,
  unappliedForRollback,
  type MigrationTarget,
} from './deploy-safety.js';
import { CanaryCandidates } from './canary-candidates.js';
import { createCanarySteps } from './canary-steps.js';
import { decideStagedCanary } from './node-canary.js';
import { planNodeCutover } from './node-cutover.js';
import { createProjectFiles, type ActivePointer } from './project-files.js';
import { projectIdsUnder, projectRunStates } from './project-run-states.js';
import { createReleaseStarter } from './release-starter.js';
import { RetiringApps } from './retiring-apps.js';
import type { DeploymentProvider, ProjectRunState, ReconcileRequest } from './provider-contract.js';

export type { ActivePointer } from './project-files.js';

/** Named points of a deploy where tests inject failures (throw) or crashes (kill -9). */
export type LocalProviderFailpoint = 'after-stop' | 'after-migrate' | 'after-health' | 'after-switch';

export interface LocalProviderOptions {
  runner: AppRunner;
  /** Root holding `<projectId>/releases/<releaseId>`, `<projectId>/data`, `<projectId>/snapshots` and `<projectId>/active.json`. */
  rootDir: string;
  /** Provider-side, project-scoped secret store (contract rule 6). */
  secrets?: (projectId: string) => Promise<Record<string, string>>;
  /** The svc package linked into each release (`@svc-dev/svc/runtime`, `@svc-dev/svc/sqlite`); default: this installation. */
  platformPackageDir?: string;
  /** Stop grace for the previous app (default 10 s). */
  drainMs?: number;
  /** Longest a blue-green switch keeps the replaced app serving while the new route is not acknowledged (default 30 s). */
  retireGraceMs?: number;
  /** Refuses a project's writers while a runtime fence of an earlier provider process is unresolved. */
  gate?: (projectId: string) => Promise<void>;
  /** Operator switch that, together with a release's own flag, allows unsafe migrations. */
  operatorAllowsUnsafe?: boolean;
  failpoint?: (name: LocalProviderFailpoint, releaseId: string) => void;
  /** Private telemetry for failures that do not reach a caller (rollback, resume). */
  onError?: (error: unknown, context: string) => void;
  clock?: Clock;
}

/** What resume did for one project. */
export interface ResumeOutcome {
  projectId: string;
  outcome: 'started' | 'stopped' | 'running' | 'failed';
  code?: string;
}

/** A local provider plus what tests and operators read from it. */
export interface LocalProvider extends DeploymentProvider {
  /** Where the project's active release is reachable, from the durable pointer. */
  active(projectId: string): ActivePointer | null;
  /** Per project: the pointer's generation and release, and the app's address while it is up. */
  running(): Promise<ProjectRunState[]>;
  /** Restart from durable state: settle interrupted deploys and start every project's active release. */
  resume(): Promise<ResumeOutcome[]>;
  /** Stop every app this provider started (shutdown). */
  close(): Promise<void>;
}

/** Create the local provider. */
export function createLocalProvider(options: LocalProviderOptions): LocalProvider {
  const apps = new Map<string, RunningApp>();
  const retiring = new RetiringApps({
    graceMs: options.retireGraceMs ?? 30_000,
    stopGraceMs: options.drainMs ?? 10_000,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const clock = options.clock ?? systemClock;
  const drainMs = options.drainMs ?? 10_000;
  const failpoint = options.failpoint ?? (() => undefined);
  const files = createProjectFiles(options);
  const { projectDir, active, writePointer, migrationTarget, stage } = files;
  const report = (error: unknown, context: string): void => options.onError?.(error, context);
  const canaries = new CanaryCandidates({ projectDir, stopGraceMs: drainMs });
  const { startRelease, restartActive } = createReleaseStarter({
    runner: options.runner,
    files,
    report,
    ...(options.secrets ? { secrets: options.secrets } : {}),
  });

  /** Undo a deploy that did not switch: the candidate is stopped, the database restored, the previous release restarted. */
  async function rollbackDeploy(projectId: string, candidate: RunningApp | null, previous: ActivePointer | null): Promise<void> {
    try {
      if (candidate) await candidate.stop({ graceMs: 2000 });
      await settlePendingDeploy(projectDir(projectId), previous?.releaseId ?? null);
      if (previous?.releaseId) {
        apps.set(projectId, await restartActive(projectId, { ...previous, releaseId: previous.releaseId }));
      }
    } catch (error) {
      report(error, `rollback of ${projectId}`);
    }
  }

  async function run(request: ReconcileRequest): Promise<void> {
    const projectId = request.operation.projectId;
    const releaseId = request.desired.releaseId!;
    const dir = projectDir(projectId);
    if (request.canary) return canarySteps.start(request);
    const canaryAction = decideStagedCanary(canaries.staged(projectId), request.desired);
    if (canaryAction === 'promote') return canarySteps.promote(request);
    if (canaryAction === 'abort') await canarySteps.abort(projectId);
    const current = active(projectId);
    const currentApp = apps.get(projectId);
    if (current?.releaseId === releaseId && currentApp && !currentApp.exited && decidePendingDeploy(current.releaseId, readPendingDeploy(dir)) !== 'restore') {
      // Already serving (a retry after a lost response or after a failure past the switch).
      await clearPendingDeploy(dir);
      writePointer(projectId, { ...current, generation: request.desired.generation });
      return;
    }
    await options.gate?.(projectId);
    // Apps replaced earlier and still draining belong to superseded generations: they stop now.
    await retiring.stopUpTo(projectId);
    const releaseDir = await stage(request);
    const config = request.artifact!.decoded.config;
    const target = migrationTarget(projectId, releaseDir, config);
    const rollback = request.rollback ?? null;
    // Read-only: a deploy checks history and safety; a rollback accepts newer migrations than its own.
    const pendingMigrations = rollback ? await unappliedForRollback(target) : await precheckMigrations(target);
    const plan = planNodeCutover({
      pendingMigrations,
      // A leftover in-flight record is settled with the writer stopped, so it never runs beside the app.
      priorRunning: currentApp !== undefined && !currentApp.exited && readPendingDeploy(dir) === null,
      sameRelease: current?.releaseId === releaseId,
      rollback,
      activeReleaseId: current?.releaseId ?? null,
      activeSnapshotExists: current?.releaseId ? hasSnapshotOf(dir, current.releaseId) : false,
    });
    if (plan.kind === 'refuse') throw new SvcError(plan.code, plan.message);
    if (plan.kind === 'blue-green') return blueGreen(request, config, target, current, currentApp!);
    if (currentApp && !currentApp.exited && request.traffic) {
      // The control plane holds the project's requests (and lets the ones in flight finish) before the writer stops.
      await request.traffic.hold().catch((error: unknown) => report(error, `holding the requests of ${projectId}`));
    }
    // One writer per database: the previous app stops before the database is touched or the candidate starts.
    if (currentApp) await currentApp.stop({ graceMs: drainMs });
    apps.delete(projectId);
    let candidate: RunningApp | null = null;
    let safetyCopy: string | null = null;
    try {
      failpoint('after-stop', releaseId);
      await settlePendingDeploy(dir, current?.releaseId ?? null);
      if (plan.restore) {
        safetyCopy = await restoreForRollback(dir, releaseId, plan.snapshotOf, target.databasePath, clock.now());
        if ((await unappliedForRollback(target)) > 0) await migrateDatabase(target);
      } else {
        await snapshotAndMigrate(dir, releaseId, target, clock.now());
      }
      failpoint('after-migrate', releaseId);
      if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'Aborted before the candidate started');
      candidate = await startRelease(projectId, releaseId, config, {}, request.signal);
      failpoint('after-health', releaseId);
    } catch (error) {
      // startRelease stops a candidate that failed its health check itself.
      await rollbackDeploy(projectId, candidate, current);
      throw isSvcError(error) ? error : new SvcError('SVC_PROVIDER_FAILED', `Deploy of ${releaseId} failed: ${(error as Error).message}`, { cause: error });
    }
    await switchTo(request, candidate, current, safetyCopy);
  }

  /**
   * Blue-green (code only, the active app up): snapshot the database live (the rollback point of the
   * new release), start the candidate beside the active app on its own port, health-check it, switch.
   * A failed candidate never touches the active app. The replaced app keeps serving until the control
   * plane acknowledges the new route (routed), or retireGraceMs at the latest.
   */
  async function blueGreen(
    request: ReconcileRequest,
    config: DeployConfig,
    target: MigrationTarget,
    current: ActivePointer | null,
    previousApp: RunningApp,
  ): Promise<void> {
    const projectId = request.operation.projectId;
    const releaseId = request.desired.releaseId!;
    await createSnapshot(target.databasePath, snapshotPathOf(projectDir(projectId), releaseId));
    if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'Aborted before the candidate started');
    const candidate = await startRelease(projectId, releaseId, config, {}, request.signal);
    try {
      failpoint('after-health', releaseId);
    } catch (error) {
      await candidate.stop({ graceMs: 2000 });
      throw error;
    }
    retiring.retire(projectId, previousApp, request.desired.generation);
    await switchTo(request, candidate, current, null);
  }

  /** Switch: the pointer is the node's ingress; one atomic rename moves it. */
  async function switchTo(request: ReconcileRequest, candidate: RunningApp, current: ActivePointer | null, safetyCopy: string | null): Promise<void> {
    const projectId = request.operation.projectId;
    const releaseId = request.desired.releaseId!;
    // Restarting the same release (its app had ended) keeps the rollback target it already had.
    const previousReleaseId = current?.releaseId === releaseId ? current.previousReleaseId : (current?.releaseId ?? null);
    writePointer(projectId, { generation: request.desired.generation, releaseId, host: candidate.host, port: candidate.port, previousReleaseId });
    apps.set(projectId, candidate);
    try {
      failpoint('after-switch', releaseId);
      await commitPendingDeploy(projectDir(projectId), safetyCopy);
      await collectReleases(projectId);
    } catch (error) {
      // Past the switch nothing is undone: the new pointer stands and a retry only settles the leftovers.
      throw isSvcError(error)
        ? error
        : new SvcError('SVC_PROVIDER_FAILED', `Clean-up after switching to ${releaseId} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  const canarySteps = createCanarySteps({
    canaries,
    retiring,
    apps,
    files,
    clock,
    startRelease,
    switchTo,
    collectReleases,
    report,
    ...(options.gate ? { gate: options.gate } : {}),
  });

  async function stop(request: ReconcileRequest): Promise<void> {
    const projectId = request.operation.projectId;
    const current = active(projectId);
    if (canaries.has(projectId)) await canarySteps.abort(projectId);
    await retiring.stopUpTo(projectId);
    await apps.get(projectId)?.stop({ graceMs: drainMs });
    apps.delete(projectId);
    await options.gate?.(projectId);
    await mkdir(projectDir(projectId), { recursive: true });
    await settlePendingDeploy(projectDir(projectId), current?.releaseId ?? null);
    writePointer(projectId, {
      generation: request.desired.generation,
      releaseId: null,
      host: null,
      port: null,
      previousReleaseId: current?.releaseId ?? current?.previousReleaseId ?? null,
    });
  }

  /** Rule 9: remove only releases (and snapshots) referenced by neither the active nor the rollback pointer. */
  async function collectReleases(projectId: string): Promise<void> {
    const pointer = active(projectId);
    // Releases of replaced apps still draining stay until those apps stopped.
    const keep = [pointer?.releaseId, pointer?.previousReleaseId, ...retiring.releaseIds(projectId), ...canaries.releaseIds(projectId)];
    await files.collect(projectId, new Set(keep.filter((id): id is string => typeof id === 'string')));
  }

  async function resumeProject(projectId: string): Promise<ResumeOutcome> {
    const running = apps.get(projectId);
    if (running && !running.exited) return { projectId, outcome: 'running' };
    await options.gate?.(projectId);
    const pointer = active(projectId);
    if (canaries.has(projectId)) {
      // Its app ended with the previous provider process: the canary is discarded, never restarted.
      await canaries.forget(projectId);
      if (existsSync(join(projectDir(projectId), 'releases'))) await collectReleases(projectId);
    }
    await settlePendingDeploy(projectDir(projectId), pointer?.releaseId ?? null);
    if (!pointer?.releaseId) return { projectId, outcome: 'stopped' };
    apps.set(projectId, await restartActive(projectId, { ...pointer, releaseId: pointer.releaseId }));
    return { projectId, outcome: 'started' };
  }

  return {
    kind: `local-${options.runner.kind}`,
    supportsCanary: true,
    active,
    running: async () => projectRunStates({ rootDir: options.rootDir, active, apps, canaries, report }),
    async reconcile(request: ReconcileRequest): Promise<void> {
      if (request.desired.state === 'running') await run(request);
      else await stop(request);
    },
    async resume(): Promise<ResumeOutcome[]> {
      const outcomes: ResumeOutcome[] = [];
      for (const projectId of projectIdsUnder(options.rootDir)) {
        try {
          outcomes.push(await resumeProject(projectId));
        } catch (error) {
          report(error, `resume of ${projectId}`);
          outcomes.push({ projectId, outcome: 'failed', code: isSvcError(error) ? error.code : 'SVC_PROVIDER_FAILED' });
        }
      }
      return outcomes;
    },
    async routed(projectId: string, generation: number): Promise<void> {
      await retiring.stopUpTo(projectId, generation);
    },
    async close(): Promise<void> {
      await retiring.closeAll();
      await canaries.closeAll();
      for (const app of apps.values()) await app.stop({ graceMs: 2000 });
      apps.clear();
    },
  };
}
