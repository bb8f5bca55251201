// The packaged platform's default drill `boot`: start the project's active release code with the
// platform's app runner (SVC_RUNNER: process or container) against the disposable database copy,
// and wait for its health path. The app gets its public env (and secrets only when configured),
// never the production data directory, bucket volume or recovery journal.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FeatureContext } from '../../core/feature-context.js';
import { SvcError } from '../../core/errors.js';
import { projectLayout, releaseDirOf } from '../../releases/project-layout.js';
import { activeReleaseRow, releaseConfig } from '../../releases/release-store.js';
import { selectAppRunner } from '../../../runner/container/select-runner.js';
import { readSandboxSettings } from '../../../runner/sandbox/sandbox-settings.js';
import { projectUid } from '../../projects/index.js';
import { checkHealth } from '../../../runner/health-check.js';
import { LogStore } from '../../../runner/log-store.js';
import type { RestoreDrillOptions } from './run-restore-drill.js';
import type { DrillCheck } from './run-due-drill.js';

export interface ReleaseDrillBootOptions {
  /** Decrypted secrets of a project; only used when `withSecrets`. */
  loadSecrets?: (projectId: string) => Promise<Record<string, string>>;
  withSecrets: boolean;
}

/** A `boot(projectId, {databasePath, signal})` that runs the active release on the restored copy. */
export function releaseDrillBoot(ctx: FeatureContext, options: ReleaseDrillBootOptions): RestoreDrillOptions['boot'] {
  const uidBase = readSandboxSettings(ctx.config.env).uidBase;
  return async (projectId, { databasePath, signal }) => {
    const active = activeReleaseRow(ctx, projectId);
    if (!active) throw new SvcError('SVC_OPS_DRILL_FAILED', `Project ${projectId} has no active release to boot.`);
    const config = releaseConfig(active);
    const work = await mkdtemp(join(tmpdir(), 'svc-drill-run-'));
    const runner = selectAppRunner(ctx.config.env, {
      runsDir: join(work, 'runs'),
      logs: new LogStore({ dir: join(work, 'logs'), clock: ctx.clock }),
      clock: ctx.clock,
      stopGraceMs: 5000,
      // The drill runs the project's own code, so under the project's own uid.
      uidFor: (id) => projectUid(ctx, id, uidBase),
      traversableRoots: [dirname(ctx.config.dataDir), work],
    });
    const cleanup = () => rm(work, { recursive: true, force: true });
    let app;
    try {
      const secrets = options.withSecrets && options.loadSecrets ? await options.loadSecrets(projectId) : {};
      app = await runner.start({
        projectId,
        releaseId: active.id,
        releaseDir: releaseDirOf(projectLayout(ctx.config.dataDir, projectId), active.id),
        entry: config.entry,
        dataDir: dirname(databasePath),
        databasePath,
        env: config.env,
        secrets,
        host: '127.0.0.1',
      });
    } catch (error) {
      await cleanup();
      throw error;
    }
    const started = app;
    const stop = async () => {
      await started.stop().catch(() => undefined);
      await cleanup();
    };
    const health = await checkHealth({ host: started.host, port: started.port, path: config.health.path, timeoutMs: config.health.timeoutMs, exited: started.wait(), signal });
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
