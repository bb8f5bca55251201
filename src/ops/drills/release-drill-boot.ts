// The packaged platform's default drill `boot`: start the project's active release code through a
// release driver of its own (the platform's runner kind: sandbox, container or process) against the
// disposable database copy, and wait for its health path. The app gets its public env (and secrets
// only when configured), never the production data directory, bucket volume or recovery journal;
// it is a candidate of that driver, so it is never supervised or routed as the project's app.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FeatureContext } from '../../core/feature-context.js';
import { SvcError } from '../../core/errors.js';
import { activeReleaseRow, projectLayout, releaseConfig, releaseDirOf } from '../../releases/index.js';
import type { AppStartSpec, ReleaseDriver } from '../../../runner/release-driver.js';
import type { RestoreDrillOptions } from './run-restore-drill.js';
import type { DrillCheck } from './run-due-drill.js';

/**
 * A release driver for one drill, built by the composition root like the production one: its runs,
 * logs and supervisor state live under `workDir` (deleted after the drill), and every app it starts
 * gets the spec `resolveSpec` answers.
 */
export type OpenDrillDriver = (
  workDir: string,
  resolveSpec: (projectId: string, releaseId: string) => Promise<AppStartSpec>,
) => Pick<ReleaseDriver, 'startCandidate' | 'checkHealth'>;

export interface ReleaseDrillBootOptions {
  openDriver: OpenDrillDriver;
  /** Decrypted secrets of a project; only used when `withSecrets`. */
  loadSecrets?: (projectId: string) => Promise<Record<string, string>>;
  withSecrets: boolean;
}

/** A `boot(projectId, {databasePath, signal})` that runs the active release on the restored copy. */
export function releaseDrillBoot(ctx: FeatureContext, options: ReleaseDrillBootOptions): RestoreDrillOptions['boot'] {
  return async (projectId, { databasePath, signal }) => {
    const active = activeReleaseRow(ctx, projectId);
    if (!active) throw new SvcError('SVC_OPS_DRILL_FAILED', `Project ${projectId} has no active release to boot.`);
    const config = releaseConfig(active);
    const work = await mkdtemp(join(tmpdir(), 'svc-drill-run-'));
    const driver = options.openDriver(work, async (id, releaseId) => ({
      projectId: id,
      releaseId,
      releaseDir: releaseDirOf(projectLayout(ctx.config.dataDir, id), releaseId),
      entry: config.entry,
      dataDir: dirname(databasePath),
      databasePath,
      env: config.env,
      secrets: options.withSecrets && options.loadSecrets ? await options.loadSecrets(id) : {},
      host: '127.0.0.1',
    }));
    const cleanup = () => rm(work, { recursive: true, force: true });
    let app;
    try {
      app = await driver.startCandidate(projectId, active.id);
    } catch (error) {
      await cleanup();
      throw error;
    }
    const started = app;
    const stop = async () => {
      await started.stop().catch(() => undefined);
      await cleanup();
    };
    const health = await driver.checkHealth(started, { path: config.health.path, timeoutMs: config.health.timeoutMs, signal });
    if (!health.ok) {
      await stop();
      throw new SvcError('SVC_OPS_DRILL_FAILED', `The restored app did not become healthy on ${config.health.path} (${health.reason}).`);
    }
    return { url: `http://127.0.0.1:${started.port}/`, stop };
  };
}

/** The default checks: the active release's health path expecting 200. */
export function releaseHealthChecks(ctx: FeatureContext): (projectId: string) => readonly DrillCheck[] {
  return (projectId) => {
    const active = activeReleaseRow(ctx, projectId);
    if (!active) throw new SvcError('SVC_OPS_DRILL_FAILED', `Project ${projectId} has no active release.`);
    return [{ name: 'health', path: releaseConfig(active).health.path, status: 200 }];
  };
}
